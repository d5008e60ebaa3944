import { randomBytes } from 'node:crypto';

/** What `retrieve_future` answers for a finished request: the typed result or `{error, category}`. */
export type FutureBody = Readonly<Record<string, unknown>>;

interface Entry {
  body: FutureBody | undefined;
  doneAt: number;
  readonly waiters: Set<() => void>;
}

/** Outcome of {@link FutureStore.wait}. */
export type FutureWait = { readonly state: 'done'; readonly body: FutureBody } | { readonly state: 'pending' } | { readonly state: 'expired' } | { readonly state: 'unknown' };

/**
 * The futures of one server: each submitted request gets an id (`req_<hex>`) whose result `retrieve_future`
 * long-polls. Finished results are kept `ttlMs` after completion (a client may poll again after a lost
 * response), then forgotten; ids forgotten that way answer `expired` (HTTP 410: the client resubmits).
 */
export class FutureStore {
  readonly #entries = new Map<string, Entry>();
  /** Ids dropped after their TTL, oldest first (bounded). */
  readonly #expired = new Set<string>();
  readonly #ttlMs: number;
  readonly #sweep: NodeJS.Timeout;

  constructor(opts: { ttlMs: number }) {
    this.#ttlMs = opts.ttlMs;
    this.#sweep = setInterval(() => this.sweep(Date.now()), Math.max(1000, Math.min(60_000, opts.ttlMs / 2)));
    this.#sweep.unref();
  }

  /** Number of futures held (pending or finished). */
  get size(): number {
    return this.#entries.size;
  }

  /** Registers a request and settles it with `work`'s outcome (`toBody` turns a rejection into `{error, category}`). */
  create(work: Promise<FutureBody>, toBody: (e: unknown) => FutureBody): string {
    const id = `req_${randomBytes(8).toString('hex')}`;
    const entry: Entry = { body: undefined, doneAt: 0, waiters: new Set() };
    this.#entries.set(id, entry);
    const settle = (body: FutureBody) => {
      entry.body = body;
      entry.doneAt = Date.now();
      for (const w of entry.waiters) w();
      entry.waiters.clear();
    };
    work.then(settle, (e: unknown) => settle(toBody(e)));
    return id;
  }

  /** Waits up to `timeoutMs` for request `id` (or until `signal` aborts, e.g. the client went away). */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<FutureWait> {
    const entry = this.#entries.get(id);
    if (!entry) return { state: this.#expired.has(id) ? 'expired' : 'unknown' };
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
    for (const [id, e] of this.#entries) {
      if (e.body !== undefined && now - e.doneAt > this.#ttlMs) {
        this.#entries.delete(id);
        this.#expired.add(id);
      }
    }
    while (this.#expired.size > 100_000) this.#expired.delete(this.#expired.values().next().value as string);
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
