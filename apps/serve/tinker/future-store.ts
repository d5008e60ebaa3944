import { randomBytes } from 'node:crypto';

/** What `retrieve_future` answers for a finished request: the typed result or `{error, category}`. */
export type FutureBody = Readonly<Record<string, unknown>>;

interface Entry {
  readonly owner: string;
  body: FutureBody | undefined;
  doneAt: number;
  readonly waiters: Set<() => void>;
}

/** Outcome of {@link FutureStore.wait}. */
export type FutureWait =
  | { readonly state: 'done'; readonly body: FutureBody }
  | { readonly state: 'pending' }
  | { readonly state: 'expired' }
  | { readonly state: 'unknown' };

/** Limits of a {@link FutureStore}. */
export interface FutureStoreOptions {
  /** Finished results are kept this long after completion, ms. */
  readonly ttlMs: number;
  /** Finished results kept at most; past it the oldest finished ones expire early. @default 4096 */
  readonly maxRetained?: number;
}

/**
 * The futures of one server: each submitted request gets an unguessable id (`req_<32 hex>`) whose result
 * `retrieve_future` long-polls. Each future belongs to the caller (`owner`) that submitted it: others are told it
 * does not exist. Finished results are kept `ttlMs` after completion (a client may poll again after a lost
 * response), at most `maxRetained` of them (oldest first out), then forgotten; ids forgotten that way answer
 * `expired` (HTTP 410: the client resubmits).
 */
export class FutureStore {
  readonly #entries = new Map<string, Entry>();
  /** Finished ids in the order they finished (for the retained-results cap). */
  readonly #finished = new Set<string>();
  /** Ids dropped after their TTL or the cap, oldest first (bounded), with their owner. */
  readonly #expired = new Map<string, string>();
  readonly #ttlMs: number;
  readonly #maxRetained: number;
  readonly #sweep: NodeJS.Timeout;

  constructor(opts: FutureStoreOptions) {
    this.#ttlMs = opts.ttlMs;
    this.#maxRetained = opts.maxRetained ?? 4096;
    this.#sweep = setInterval(() => this.sweep(Date.now()), Math.max(1000, Math.min(60_000, opts.ttlMs / 2)));
    this.#sweep.unref();
  }

  /** Number of futures held (pending or finished). */
  get size(): number {
    return this.#entries.size;
  }

  /** Finished results held now. */
  get retained(): number {
    return this.#finished.size;
  }

  /**
   * Registers a request of `owner` and settles it with `work`'s outcome (`toBody` turns a rejection into
   * `{error, category}`); `onSettled` runs once it has settled (load accounting).
   */
  create(owner: string, work: Promise<FutureBody>, toBody: (e: unknown) => FutureBody, onSettled?: () => void): string {
    const id = `req_${randomBytes(16).toString('hex')}`;
    const entry: Entry = { owner, body: undefined, doneAt: 0, waiters: new Set() };
    this.#entries.set(id, entry);
    const settle = (body: FutureBody) => {
      onSettled?.();
      if (this.#entries.get(id) !== entry) return;
      entry.body = body;
      entry.doneAt = Date.now();
      this.#finished.add(id);
      for (const w of entry.waiters) w();
      entry.waiters.clear();
      while (this.#finished.size > this.#maxRetained) this.#expire(this.#finished.values().next().value as string);
    };
    work.then(settle, (e: unknown) => settle(toBody(e)));
    return id;
  }

  /** Waits up to `timeoutMs` for request `id` of `owner` (or until `signal` aborts, e.g. the client went away). */
  async wait(owner: string, id: string, timeoutMs: number, signal?: AbortSignal): Promise<FutureWait> {
    const entry = this.#entries.get(id);
    if (!entry || entry.owner !== owner) return { state: this.#expired.get(id) === owner ? 'expired' : 'unknown' };
    if (entry.body === undefined && timeoutMs > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          entry.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        entry.waiters.add(done);
      });
    }
    return entry.body === undefined ? { state: 'pending' } : { state: 'done', body: entry.body };
  }

  /** Forgets results finished more than the TTL before `now`. */
  sweep(now: number): void {
    for (const id of this.#finished) {
      const e = this.#entries.get(id);
      if (e && now - e.doneAt <= this.#ttlMs) break; // finish order: the rest are younger
      this.#expire(id);
    }
  }

  #expire(id: string): void {
    const e = this.#entries.get(id);
    this.#finished.delete(id);
    if (!e) return;
    this.#entries.delete(id);
    this.#expired.set(id, e.owner);
    while (this.#expired.size > 100_000) this.#expired.delete(this.#expired.keys().next().value as string);
  }

  /** Stops the sweep timer and wakes every long poll. */
  close(): void {
    clearInterval(this.#sweep);
    for (const e of this.#entries.values()) {
      for (const w of e.waiters) w();
      e.waiters.clear();
    }
  }
}
