/**
 * The remote client's retry names in its public API, kept as aliases of the one retry policy in
 * `src/util/retry.ts` (which the client itself uses).
 */
import { backoffMs } from '../../src/util/retry.js';

export { RetryBudget } from '../../src/util/retry.js';

/**
 * Full-jitter exponential back-off: a uniform delay in `[0, min(capMs, baseMs × 2^attempt))`, i.e. `backoffMs` of
 * `src/util/retry.ts` with `fullJitter: true`.
 * @param attempt - 0 for the first retry.
 * @param opts - `baseMs`, `capMs` (ms) and `random`, a uniform [0, 1) source (inject for tests). @returns delay in ms.
 * @see "Exponential Backoff And Jitter", AWS Architecture Blog (2015).
 */
export function backoffDelayMs(attempt: number, opts: { readonly baseMs: number; readonly capMs: number; readonly random: () => number }): number {
  return backoffMs(attempt, { ...opts, fullJitter: true });
}
