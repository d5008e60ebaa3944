import { SandboxTimeoutError, SandboxUnavailableError, SandboxClosedError } from '../../src/errors/sandbox-errors.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Client-side admission control: at most `concurrency` calls in flight, at most `maxQueue` waiting
 * (FIFO), each waiting at most `queueTimeoutMs`. Queue waits are not sandbox time: a call that
 * never got a slot fails with {@link SandboxTimeoutError} (distinct from a code timeout, which is a
 * result with `status: 'timeout'`).
 */
export class Admission {
  #active = 0;
  #closed = false;
  readonly #queue: Waiter[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxQueue: number,
    readonly queueTimeoutMs: number,
  ) {}

  /** Calls in flight. */
  get active(): number {
    return this.#active;
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Waits for a slot; call the returned function exactly once to give it back.
   * @throws SandboxUnavailableError when `maxQueue` calls are already waiting.
   * @throws SandboxTimeoutError after `queueTimeoutMs` in the queue.
   * @throws SandboxClosedError after {@link close}; the abort reason when `signal` aborts.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#closed) return Promise.reject(new SandboxClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.concurrency) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.maxQueue) {
      return Promise.reject(new SandboxUnavailableError(`remote sandbox queue is full (${this.maxQueue} calls waiting)`));
    }
    return new Promise<() => void>((resolve, reject) => {
      let unwatch = (): void => undefined;
      const cleanup = (): void => {
        clearTimeout(timer);
        unwatch();
        const i = this.#queue.indexOf(w);
        if (i >= 0) this.#queue.splice(i, 1);
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new SandboxTimeoutError(this.queueTimeoutMs, { cause: new Error('no free slot in the client-side queue') }));
      }, this.queueTimeoutMs);
      const w: Waiter = {
        resolve: () => {
          cleanup();
          resolve(this.#releaser());
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      };
      unwatch = watchAbort(signal, onAbort);
      this.#queue.push(w);
    });
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#queue[0];
      if (next && !this.#closed) next.resolve();
      else this.#active -= 1;
    };
  }

  /** Rejects every waiter with {@link SandboxClosedError}; later `acquire` calls reject too. */
  close(): void {
    this.#closed = true;
    const err = new SandboxClosedError();
    for (const w of [...this.#queue]) w.reject(err);
  }
}
