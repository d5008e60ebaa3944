/**
 * The one retry policy of agentrl's clients (Tinker, OpenAI-compatible samplers, the remote sandbox, the search
 * retriever): an abortable `sleep`, one `Retry-After` parser, one backoff formula, a token-bucket {@link RetryBudget}
 * against retry storms, and {@link retry}, the driver that combines them. A client states its documented options as a
 * {@link RetryPolicy}; loops that are protocol state machines rather than retry loops (Tinker's future polling) use
 * the {@link RetrySchedule} the driver is built on.
 */
import { AgentRLError } from '../errors/base.js';
import { onAbort } from './on-abort.js';

/** Longest server-requested wait honoured by default (a longer `Retry-After` waits this long), ms. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Waits `ms` milliseconds; rejects with `signal.reason` when `signal` aborts (before or during the wait), clearing the
 * timer. The abort is watched through {@link onAbort}: one listener per signal however many waits share it (64
 * concurrent retries on the trainer's one signal trip no `MaxListenersExceededWarning`), undone when the wait ends.
 * @internal
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const unwatch = onAbort(signal, (reason) => {
      clearTimeout(timer);
      reject(reason);
    });
    const timer = setTimeout(() => {
      unwatch();
      resolve();
    }, ms);
  });
}

/** Response headers as `fetch` (`Headers`) or undici's `request` (a lower-case record) gives them. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function header(h: HeaderSource, name: string): string | undefined {
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name)?.trim();
  const v = (h as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  return (typeof v === 'string' ? v : v?.[0])?.trim();
}

const NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * The server's requested wait, ms: `retry-after-ms` (milliseconds, OpenAI's extension) when it is a non-negative
 * number, else `retry-after` as delay-seconds or as an HTTP date (the wait until then, 0 when past), capped at
 * `capMs`. Garbage, negative values and absent headers give `undefined` (the caller's own backoff applies).
 * @param capMs - longest wait returned, ms. @default {@link RETRY_AFTER_CAP_MS}
 * @param nowMs - the current time for the HTTP-date form (epoch ms). @default Date.now()
 * @see RFC 9110 §10.2.3 (Retry-After).
 * @internal
 */
export function retryAfterMs(headers: HeaderSource, capMs: number = RETRY_AFTER_CAP_MS, nowMs: number = Date.now()): number | undefined {
  const capped = (ms: number): number => Math.min(ms, capMs);
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && NUMBER.test(ms) && Number(ms) >= 0) return capped(Number(ms));
  const s = header(headers, 'retry-after');
  if (s === undefined || s === '') return undefined;
  if (NUMBER.test(s)) return Number(s) >= 0 ? capped(Number(s) * 1000) : undefined;
  // An HTTP date names a weekday or month; requiring a letter keeps `Date.parse` from reading numbers as years.
  const at = /[a-z]/i.test(s) ? Date.parse(s) : Number.NaN;
  return Number.isFinite(at) ? capped(Math.max(0, at - nowMs)) : undefined;
}

/** Exponential backoff: retry n (0-based) waits `min(capMs, baseMs · 2^n)`, or a uniform draw below that with full jitter. */
export interface BackoffOptions {
  /** Delay of the first retry (the ceiling of its draw with jitter), ms. */
  readonly baseMs: number;
  /** Longest delay, ms. */
  readonly capMs: number;
  /** Draw each delay uniformly from `[0, ceiling)` ("full jitter"), so clients that failed together spread out. @default false */
  readonly fullJitter?: boolean;
  /** Uniform [0, 1) source for the jitter (inject in tests). @default Math.random */
  readonly random?: () => number;
}

/**
 * Delay before retry `retry` (0 for the first retry), ms: `min(capMs, baseMs · 2^retry)`, or with `fullJitter`
 * `floor(random() · that)`.
 * @see "Exponential Backoff And Jitter", AWS Architecture Blog (2015), for full jitter.
 * @internal
 */
export function backoffMs(retry: number, o: BackoffOptions): number {
  const ceiling = Math.min(o.capMs, o.baseMs * 2 ** Math.max(0, retry));
  return o.fullJitter ? Math.floor((o.random ?? Math.random)() * ceiling) : ceiling;
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

/** Why a retryable failure was not retried: attempts used up, time budget spent, or the shared token bucket empty. */
export type RetryGiveUp = 'attempts' | 'time' | 'tokens';

/** How one client retries. Every limit given applies; with none, retryable failures are retried forever. */
export interface RetryPolicy {
  /** Most attempts in all, the first included (`retries + 1`). @default Infinity */
  readonly maxAttempts?: number;
  /** Longest time from the first failure of a run until the end of its last wait, ms; a wait that would pass it is not started. @default Infinity */
  readonly budgetMs?: number;
  /** Delay before retry n (0-based): exponential {@link BackoffOptions}, or a function for a documented other shape. */
  readonly backoff: BackoffOptions | ((retry: number) => number);
  /** Which failures are retried. @default an {@link AgentRLError} whose `retryable` is true */
  readonly retryable?: (error: unknown) => boolean;
  /** The server's requested wait for a failure, ms (it replaces the backoff delay). @default the error's numeric `retryAfterMs` property */
  readonly retryAfterMs?: (error: unknown) => number | undefined;
  /** Longest server-requested wait honoured (a longer one waits this long), ms. @default {@link RETRY_AFTER_CAP_MS} */
  readonly retryAfterCapMs?: number;
  /** Token bucket shared with the client's other calls: each call deposits once, each retry withdraws a token. */
  readonly budget?: RetryBudget;
  /** Called before each retry's wait (metrics, logs). */
  readonly onRetry?: (info: { readonly retry: number; readonly delayMs: number; readonly error: unknown }) => void;
  /** Called when a retryable failure is given up on, before it is thrown. */
  readonly onGiveUp?: (why: RetryGiveUp, error: unknown) => void;
}

/** The default `retryable`: agentrl's own errors say whether trying again can help. */
export const isRetryable = (error: unknown): boolean => AgentRLError.isInstance(error) && error.retryable;

const hintOf = (error: unknown): number | undefined => {
  const v = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' ? v : undefined;
};

/**
 * The delays of one run of consecutive failures under a {@link RetryPolicy}: `next()` answers the wait before the
 * next attempt, or why there is none; `reset()` (a usable answer arrived) starts a new run with the first delay and a
 * fresh time budget. The token bucket is not touched by `reset`.
 * @internal
 */
export class RetrySchedule {
  readonly #policy: RetryPolicy;
  #start: number | undefined;
  #retries = 0;

  constructor(policy: RetryPolicy) {
    this.#policy = policy;
  }

  /** Retries taken in this run. */
  get retries(): number {
    return this.#retries;
  }

  /**
   * The wait before the next attempt, ms (`hintMs`, the server's requested wait, replaces the backoff when it is a
   * non-negative number, capped), or why the run gives up. A delay returned counts as a retry taken.
   */
  next(hintMs?: number): { readonly delayMs: number } | { readonly giveUp: RetryGiveUp } {
    const p = this.#policy;
    const now = Date.now();
    this.#start ??= now;
    if (this.#retries + 1 >= (p.maxAttempts ?? Infinity)) return { giveUp: 'attempts' };
    const backoff = typeof p.backoff === 'function' ? p.backoff(this.#retries) : backoffMs(this.#retries, p.backoff);
    const delayMs = hintMs !== undefined && hintMs >= 0 ? Math.min(hintMs, p.retryAfterCapMs ?? RETRY_AFTER_CAP_MS) : backoff;
    if (now - this.#start + delayMs > (p.budgetMs ?? Infinity)) return { giveUp: 'time' };
    if (p.budget !== undefined && !p.budget.tryWithdraw()) return { giveUp: 'tokens' };
    this.#retries += 1;
    return { delayMs };
  }

  /** A usable answer arrived: the next failure starts a new run. */
  reset(): void {
    this.#start = undefined;
    this.#retries = 0;
  }
}

/**
 * Runs `fn` (given the 0-based attempt number) until it resolves, retrying failures the policy calls retryable with
 * the policy's waits. A non-retryable failure is thrown at once; a retryable one that the policy gives up on is thrown
 * as it is (after `onGiveUp`). An abort of `signal` ends everything: a failure after the abort, and a wait in
 * progress, reject with `signal.reason`.
 * @throws whatever `fn` threw last; `signal.reason` on abort.
 * @internal
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  const schedule = new RetrySchedule(policy);
  const retryable = policy.retryable ?? isRetryable;
  const hint = policy.retryAfterMs ?? hintOf;
  policy.budget?.deposit();
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    try {
      return await fn(attempt);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!retryable(error)) throw error;
      const next = schedule.next(hint(error));
      if ('giveUp' in next) {
        policy.onGiveUp?.(next.giveUp, error);
        throw error;
      }
      policy.onRetry?.({ retry: attempt, delayMs: next.delayMs, error });
      await sleep(next.delayMs, signal);
    }
  }
}
