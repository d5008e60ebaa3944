import type { TinkerRetryOptions } from './options.js';
import { onAbort } from '../../util/on-abort.js';

/**
 * Waits `ms` milliseconds; rejects with `signal.reason` when `signal` aborts (the timer is cleared, so nothing
 * lingers after `close()`). Every wait of a client shares its one long-lived close signal: the abort is watched
 * through {@link onAbort} (one listener on the signal however many waits are in flight, so 64 polling futures do
 * not trip Node's `MaxListenersExceededWarning`), and each wait's registration is undone when it ends.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const unwatch = onAbort(signal, (reason) => {
      clearTimeout(t);
      reject(reason);
    });
    const t = setTimeout(() => {
      unwatch();
      resolve();
    }, ms);
  });
}

/**
 * Exponential backoff over one run of consecutive failures: delay n is `min(initialDelayMs · 2^n, maxDelayMs)`
 * (a server's `retry-after` wins when given, up to 60 s), and the run gives up once `budgetMs` would be exceeded.
 * `succeeded()` starts a new run.
 */
export class RetryClock {
  readonly #opts: Required<Pick<TinkerRetryOptions, 'budgetMs' | 'initialDelayMs' | 'maxDelayMs'>>;
  #start: number | undefined;
  #n = 0;

  constructor(opts: Required<Pick<TinkerRetryOptions, 'budgetMs' | 'initialDelayMs' | 'maxDelayMs'>>) {
    this.#opts = opts;
  }

  /** Delay before the next attempt, or `undefined` when the budget is spent. */
  nextDelay(retryAfterMs?: number): number | undefined {
    const now = Date.now();
    this.#start ??= now;
    const exp = Math.min(this.#opts.initialDelayMs * 2 ** this.#n, this.#opts.maxDelayMs);
    const delay = retryAfterMs !== undefined && retryAfterMs >= 0 && retryAfterMs <= 60_000 ? retryAfterMs : exp;
    if (now - this.#start + delay > this.#opts.budgetMs) return undefined;
    this.#n += 1;
    return delay;
  }

  /** A usable answer arrived: the next failure starts a new run. */
  succeeded(): void {
    this.#start = undefined;
    this.#n = 0;
  }
}

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds) headers, when present and numeric. */
export function retryAfterMs(headers: Readonly<Record<string, string | string[] | undefined>>): number | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const msv = Number(first(headers['retry-after-ms']));
  if (Number.isFinite(msv) && first(headers['retry-after-ms']) !== undefined) return msv;
  const s = first(headers['retry-after']);
  if (s !== undefined && s.trim() !== '' && Number.isFinite(Number(s))) return Number(s) * 1000;
  return undefined;
}
