import { randomBytes } from 'node:crypto';
import type { ServeCaller, TinkerService } from '../../../apps/serve/tinker/index.js';

/** A finished result as `retrieve_future` answers it: the typed body, or `{error, category}` for a failure. */
export type FutureBody = Readonly<Record<string, unknown>>;
type Wait = Awaited<ReturnType<TinkerService['retrieve']>>;

/**
 * Futures a simulator answers itself (an engine's own failure, a result it rewrites), beside the inner service's.
 * Held polls answer `pending` after `holdMs`, as the inner service's do.
 */
export class OwnFutures {
  readonly #done = new Map<string, FutureBody | undefined>();
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Registers `work`; a rejection becomes `{error, category: 'user'}`. Returns the request id. */
  create(work: Promise<FutureBody>): string {
    const id = `req_${randomBytes(16).toString('hex')}`;
    this.#done.set(id, undefined);
    const settle = (body: FutureBody) => {
      this.#done.set(id, body);
      for (const w of this.#waiters.get(id) ?? []) w();
      this.#waiters.delete(id);
    };
    work.then(settle, (e: unknown) => settle({ error: e instanceof Error ? e.message : String(e), category: 'user' }));
    return id;
  }

  has(id: string): boolean {
    return this.#done.has(id);
  }

  async wait(id: string, holdMs: number, signal?: AbortSignal): Promise<Wait> {
    if (this.#done.get(id) === undefined && holdMs > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, holdMs);
        signal?.addEventListener('abort', done, { once: true });
        const set = this.#waiters.get(id) ?? new Set();
        set.add(done);
        this.#waiters.set(id, set);
      });
    }
    const body = this.#done.get(id);
    return body === undefined ? { state: 'pending' } : { state: 'done', body };
  }
}

/**
 * The result of the inner service's request `requestId`, polled until it settles.
 * @throws Error with the failure's message when it failed.
 */
export async function innerResult(inner: TinkerService, caller: ServeCaller, requestId: string): Promise<FutureBody> {
  for (;;) {
    const r = await inner.retrieve({ request_id: requestId }, caller);
    if (r.state === 'pending') continue;
    if (r.state !== 'done') throw new Error(`simulator: inner request ${requestId} is ${r.state}`);
    if (typeof r.body['error'] === 'string') throw new Error(r.body['error']);
    return r.body;
  }
}
