import { ServeRequestError } from './errors.js';
import type { ServeLimits } from './serve-limits.js';

/**
 * Unfinished futures counted per load key (a session id, or `principal:<p>` for requests without one) and in all,
 * against `maxQueuedPerSession` and `maxQueued`. Every count returns the function that uncounts it (once).
 */
export class LoadAccounting {
  readonly #limits: Pick<ServeLimits, 'maxQueuedPerSession' | 'maxQueued'>;
  readonly #queued = new Map<string, number>();
  #total = 0;

  constructor(limits: Pick<ServeLimits, 'maxQueuedPerSession' | 'maxQueued'>) {
    this.#limits = limits;
  }

  /** Unfinished futures in all. */
  get total(): number {
    return this.#total;
  }

  /**
   * Counts one unfinished future against `key` and the server.
   * @throws ServeRequestError 429 (with `Retry-After`) when the session or the server is at its limit.
   */
  take(key: string): () => void {
    const L = this.#limits;
    const mine = this.#queued.get(key) ?? 0;
    if (mine >= L.maxQueuedPerSession) {
      throw new ServeRequestError(
        429,
        `${mine} requests of this session are unfinished (maxQueuedPerSession ${L.maxQueuedPerSession}); wait for them to finish`,
        { category: 'user', retryAfterS: 1 },
      );
    }
    if (this.#total >= L.maxQueued)
      throw new ServeRequestError(429, `server busy: ${this.#total} requests unfinished (maxQueued ${L.maxQueued}); retry later`, {
        category: 'server',
        retryAfterS: 1,
      });
    return this.count(key);
  }

  /** Counts one unfinished future against `key` without a check (an unload, or a held request now released). */
  count(key: string): () => void {
    this.#queued.set(key, (this.#queued.get(key) ?? 0) + 1);
    this.#total += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#total -= 1;
      const left = (this.#queued.get(key) ?? 1) - 1;
      if (left === 0) this.#queued.delete(key);
      else this.#queued.set(key, left);
    };
  }
}
