import { onAbort as watchAbort } from '../../src/util/on-abort.js';
/**
 * Full-jitter exponential back-off: a uniform delay in `[0, min(capMs, baseMs × 2^attempt))`.
 * @param attempt - 0 for the first retry.
 * @param random - uniform [0, 1) source (inject for tests). @returns delay in ms.
 * @see "Exponential Backoff And Jitter", AWS Architecture Blog (2015).
 */
export function backoffDelayMs(attempt: number, opts: { readonly baseMs: number; readonly capMs: number; readonly random: () => number }): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, attempt));
  return Math.floor(opts.random() * ceiling);
}

/**
 * Retry budget shared by every call of one client, so a dead or overloaded server does not turn
 * into a retry storm: each first attempt deposits `ratio` tokens, each retry withdraws one, and a
 * retry is allowed only while a whole token is left. The bucket starts with `minTokens` (so a cold
 * client can still retry) and never holds more than `maxTokens`.
 * With the defaults at most ~20 % of traffic is retries once the initial 10 tokens are spent.
 */
export class RetryBudget {
  #tokens: number;
  readonly #ratio: number;
  readonly #max: number;

  /** `ratio`: tokens earned per first attempt (0.2); `minTokens`: tokens at the start (10); `maxTokens`: the cap (100, at least `minTokens`). */
  constructor(opts: { readonly ratio?: number; readonly minTokens?: number; readonly maxTokens?: number } = {}) {
    this.#ratio = opts.ratio ?? 0.2;
    this.#tokens = opts.minTokens ?? 10;
    this.#max = Math.max(this.#tokens, opts.maxTokens ?? 100);
  }

  /** Tokens left (may be fractional). */
  get tokens(): number {
    return this.#tokens;
  }

  /** Records a first attempt. */
  deposit(): void {
    // Rounded so that 1/ratio deposits make exactly one token despite binary fractions.
    this.#tokens = Math.min(this.#max, Math.round((this.#tokens + this.#ratio) * 1e9) / 1e9);
  }

  /** Takes one token for a retry; false (and nothing taken) when the budget is spent. */
  tryWithdraw(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** Resolves after `ms`, or rejects with the abort reason when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      unwatch();
      resolve();
    }, ms);
    const unwatch = watchAbort(signal, (reason) => {
      clearTimeout(timer);
      reject(reason);
    });
  });
}
