import pLimit from 'p-limit';
import type { ExecResult, RunRequest, SandboxSession } from '../../src/types/exec-result.js';
import { SandboxClosedError, SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';
import { IvmWorker, wireToResult, type IvmFailure } from './ivm-worker.js';

/** What an {@link IvmSession} needs from its sandbox. */
export interface IvmSessionDeps {
  readonly ivmPath: () => string;
  readonly memoryMb: number;
  readonly marker: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killAfterBytes: number;
  readonly graceMs: number;
  /** Maps a call that got no reply to a result (shared with one-off calls). */
  readonly failure: (f: IvmFailure, timeoutMs: number, wallMs: number) => ExecResult;
  readonly closed: () => boolean;
  /** Registers the session's worker with the sandbox (so `close()` and `workerPids()` see it); returns the unregister function. */
  readonly track: (w: IvmWorker) => () => void;
}

/**
 * A session of the isolated-vm sandbox: a worker process of its own (not from the pool, so one
 * session's timeout never touches another's state) whose isolate keeps one context from call to
 * call. The code of each call runs as a script, so top-level `var`, `let`, `const`, `function` and
 * globals persist (no top-level `await` in session mode). A timeout, flood or memory blow-up
 * disposes the isolate (or kills the worker): the next call starts a fresh context and reports
 * `sessionReset: true`. The worker is started by the first call and killed by `close()`.
 */
export class IvmSession implements SandboxSession {
  readonly #deps: IvmSessionDeps;
  #worker: IvmWorker | undefined;
  #untrack: (() => void) | undefined;
  #started = false;
  #lost = false;
  #closed = false;
  #nextId = 1;
  /** Calls of one session run in order, one at a time. */
  readonly #serial = pLimit(1);

  constructor(deps: IvmSessionDeps) {
    this.#deps = deps;
  }

  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (this.#closed || this.#deps.closed()) return Promise.reject(new SandboxClosedError());
    return this.#serial(() => this.#run(req, signal));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#serial(() => undefined); // the calls already queued end first
    await this.#drop();
  }

  async #drop(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    this.#untrack?.();
    this.#untrack = undefined;
    await w?.destroy();
  }

  async #run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    const d = this.#deps;
    if (this.#closed || d.closed()) throw new SandboxClosedError();
    signal?.throwIfAborted();
    if (this.#worker && !this.#worker.alive) {
      await this.#drop();
      this.#lost = true;
    }
    if (!this.#worker) {
      const w = new IvmWorker({ ivmPath: d.ivmPath(), memoryMb: d.memoryMb, marker: d.marker, onDeath: () => {} });
      this.#worker = w;
      this.#untrack = d.track(w);
    }
    const w = this.#worker;
    try {
      await w.ready;
    } catch (e) {
      await this.#drop();
      throw new SandboxUnavailableError(`isolated-vm worker failed to start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const timeoutMs = req.timeoutMs ?? d.timeoutMs;
    const t0 = performance.now();
    const onAbort = (): void => w.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    const out = await w.call(
      { id: this.#nextId++, code: req.code, timeoutMs, maxOutputBytes: d.maxOutputBytes, killAfterBytes: d.killAfterBytes, session: true },
      timeoutMs + d.graceMs,
    );
    signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) {
      this.#lost = true;
      await this.#drop();
      throw signal.reason;
    }
    if (this.#closed || d.closed()) throw new SandboxClosedError();
    let result: ExecResult;
    let reset: boolean;
    if ('kind' in out) {
      reset = this.#lost;
      this.#lost = true;
      await this.#drop();
      result = d.failure(out, timeoutMs, performance.now() - t0);
    } else {
      // A fresh context after the first call means the earlier state is gone.
      reset = this.#lost || (out.fresh === true && this.#started);
      this.#lost = out.ended === true;
      result = wireToResult(out);
    }
    this.#started = true;
    return reset ? { ...result, sessionReset: true } : result;
  }
}
