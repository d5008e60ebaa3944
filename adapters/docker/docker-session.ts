import pLimit from 'p-limit';
import type { ExecResult, RunRequest, SandboxSession } from '../../src/types/exec-result.js';
import { SandboxClosedError } from '../../src/errors/sandbox-errors.js';
import type { ContainerSlot, SlotFailure } from './container-slot.js';
import { replyToResult, type RunnerReply, type RunnerRequest } from './protocol.js';

/** What a {@link DockerSession} needs from its pool. */
export interface DockerSessionDeps {
  readonly acquire: (signal?: AbortSignal) => Promise<ContainerSlot>;
  /** Gives a healthy slot back to the pool. */
  readonly release: (slot: ContainerSlot) => void;
  /** Kills a slot's container; the pool starts a replacement. */
  readonly retire: (slot: ContainerSlot) => void;
  readonly failureResult: (f: SlotFailure, timeoutMs: number, startedAt: number) => ExecResult;
  readonly nextId: () => number;
  readonly closed: () => boolean;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killAfterOutputBytes: number;
  readonly backstopGraceMs: number;
}

/**
 * A session of the Docker sandbox: one warm container taken from the pool for the session's life
 * (its memory, CPU and pids limits are the session's as a whole), whose runner keeps a session
 * interpreter between calls (adapters/local/python/container.py). A timeout, flood or memory kill retires the
 * container (as for one-off calls) and the next call takes another: `sessionReset: true`. A crash
 * of the interpreter alone keeps the container; the runner starts a fresh interpreter. `close()`
 * kills and wipes the session and gives the container back to the pool.
 */
export class DockerSession implements SandboxSession {
  readonly #d: DockerSessionDeps;
  #slot: ContainerSlot | undefined;
  #started = false;
  #lost = false;
  #closed = false;
  /** Calls of one session run in order, one at a time. */
  readonly #serial = pLimit(1);

  constructor(deps: DockerSessionDeps) {
    this.#d = deps;
  }

  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (this.#closed || this.#d.closed()) return Promise.reject(new SandboxClosedError());
    return this.#serial(() => this.#run(req, signal));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#serial(() => undefined); // the calls already queued end first
    const slot = this.#slot;
    this.#slot = undefined;
    if (!slot) return;
    if (this.#d.closed()) return;
    const out = await slot.call({ id: this.#d.nextId(), op: 'session_close' } as unknown as RunnerRequest, 10_000 + this.#d.backstopGraceMs);
    if ('kind' in out || !slot.alive || this.#d.closed()) this.#d.retire(slot);
    else this.#d.release(slot);
  }

  async #run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    const d = this.#d;
    if (this.#closed || d.closed()) throw new SandboxClosedError();
    signal?.throwIfAborted();
    if (this.#slot && !this.#slot.alive) {
      d.retire(this.#slot);
      this.#slot = undefined;
      this.#lost = true;
    }
    const slot = (this.#slot ??= await d.acquire(signal));
    const timeoutMs = req.timeoutMs ?? d.timeoutMs;
    const startedAt = performance.now();
    const out = await slot.call(
      {
        id: d.nextId(),
        code: req.code,
        stdin: req.stdin ?? null,
        timeout_ms: timeoutMs,
        max_output_bytes: d.maxOutputBytes,
        kill_after_bytes: d.killAfterOutputBytes,
        session: true,
      },
      timeoutMs + d.backstopGraceMs,
      signal,
    );
    const lostBefore = this.#lost;
    if ('kind' in out) {
      d.retire(slot);
      this.#slot = undefined;
      this.#lost = true;
      if (out.kind === 'aborted') throw out.reason;
      if (d.closed()) throw new SandboxClosedError();
      const r = d.failureResult(out, timeoutMs, startedAt);
      return lostBefore ? { ...r, sessionReset: true } : r;
    }
    const reply = out as RunnerReply;
    const result = replyToResult(reply);
    const reset = lostBefore || (reply.session_fresh === true && this.#started);
    this.#started = true;
    this.#lost = reply.session_ended === true;
    if (result.status === 'timeout' || result.status === 'memory' || result.status === 'output_limit' || result.status === 'sandbox_error' || !slot.alive) {
      d.retire(slot);
      this.#slot = undefined;
      this.#lost = true;
    }
    return reset ? { ...result, sessionReset: true } : result;
  }
}
