import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { ExecResult, RunRequest, SandboxSession } from '../../src/types/exec-result.js';
import { SandboxClosedError } from '../../src/errors/index.js';
import { sandboxErrorResult } from '../../src/sandbox/index.js';
import { BACKSTOP_GRACE_MS, abortError, cpuSecondsFor, replyResult, type ForkServerPool } from './fork-server.js';
import type { SessionOpenReply, ZygoteReply, ZygoteServer } from './zygote-server.js';
import { hostPidIn, type MemoryCgroups } from './cgroup.js';
import { SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';

const MIB = 1024 * 1024;
/** Longest a session process may take to start (it is forked ahead of time, so this is rare), ms. */
const OPEN_TIMEOUT_MS = 30_000;

/**
 * Removes a session's cgroup leaf; the processes of a killed session's PID namespace die just after
 * it, so a busy leaf is retried a few times (the sandbox's `close()` removes any left).
 */
function removeLeafSoon(cg: MemoryCgroups, leaf: string, tries = 10): void {
  if (cg.removeLeaf(leaf) || tries <= 0) return;
  setTimeout(() => removeLeafSoon(cg, leaf, tries - 1), 100).unref();
}

/** Where a session's interpreter lives now. */
interface Live {
  readonly z: ZygoteServer;
  readonly sid: string;
  /** Its memory cgroup leaf, if any. */
  readonly leaf: string | undefined;
  /** Its working directory on the host (without isolation only). */
  readonly workdir: string | undefined;
}

/**
 * A session of the local sandbox (fork-server mode): one process forked from a worker's full
 * zygote, inside the same namespaces, seccomp filter and rlimits as a one-off call, that runs every
 * call of the session in one `__main__` (python/session.py). Opened lazily by the first call. With
 * memory cgroups the process is moved into a leaf of its own limited to `memoryMb` before it runs
 * any code. A call that times out, floods its output or kills the interpreter ends the process; the
 * next call opens a fresh one on any worker and reports `sessionReset: true`.
 */
export class LocalSession implements SandboxSession {
  readonly #pool: ForkServerPool;
  readonly #limit: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly #timeoutMs: number;
  #live: Live | undefined;
  /** Set when a live interpreter was lost: the next call reports `sessionReset`. */
  #lost = false;
  #closed = false;
  /** Calls of one session run in order, one at a time. */
  readonly #serial = pLimit(1);

  constructor(pool: ForkServerPool, limit: <T>(fn: () => Promise<T>) => Promise<T>, timeoutMs: number) {
    this.#pool = pool;
    this.#limit = limit;
    this.#timeoutMs = timeoutMs;
  }

  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (this.#closed || this.#pool.closed) return Promise.reject(new SandboxClosedError());
    return this.#serial(() => this.#limit(() => this.#run(req, signal)));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#serial(() => undefined); // the calls already queued end first
    const live = this.#live;
    this.#live = undefined;
    if (live) await this.#end(live, true, false);
  }

  async #run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (this.#closed || this.#pool.closed) throw new SandboxClosedError();
    if (signal?.aborted) throw abortError(signal);
    if (this.#live && !this.#pool.isCurrent(this.#live.z)) {
      // Its worker was replaced (an anomaly of another call): the process died with it.
      this.#lost = true;
      void this.#end(this.#live, false, false);
      this.#live = undefined;
    }
    const z = this.#live?.z ?? this.#pool.pick();
    let aborted = false;
    /** True while this session's `srun` is the worker's pending request (a cancel then reaches it). */
    let calling = false;
    const task = z.exclusive(async () => {
      if (aborted) throw abortError(signal!); // aborted while waiting for the worker: nothing ran
      const failed = await this.#pool.ready(z);
      if (failed) return failed;
      if (!this.#live) {
        await this.#pool.settled(z);
        const opened = await this.#open(z);
        if ('status' in opened) return opened;
        this.#live = opened;
      }
      const live = this.#live;
      if (aborted) throw abortError(signal!); // aborted while the interpreter opened: run nothing
      const reset = this.#lost;
      calling = true;
      const res = await this.#call(live, req).finally(() => (calling = false));
      if (aborted || res.ended) {
        // Ended by the call, or the caller has gone (do not leave half-run state for a later call).
        this.#live = undefined;
        this.#lost = true;
        await this.#end(live, !res.ended, true);
      } else this.#lost = false;
      return reset ? { ...res.result, sessionReset: true } : res.result;
    });
    if (!signal) return task;
    return new Promise<ExecResult>((resolve, reject) => {
      const onAbort = () => {
        aborted = true;
        // End the running call now (the worker kills the session's process tree and answers at once), so
        // the session is free for close() or its next call instead of running on to its own deadline.
        if (calling) z.cancel();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      task.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Opens the interpreter on worker `z` (inside its exclusive section). */
  async #open(z: ZygoteServer): Promise<Live | ExecResult> {
    const pool = this.#pool;
    const sid = randomBytes(8).toString('hex');
    const workdir = pool.cfg.bwrap === undefined ? await mkdtemp(join(tmpdir(), 'agentrl-session-')) : undefined;
    let reply: SessionOpenReply | Error | 'backstop';
    let guard: NodeJS.Timeout | undefined;
    try {
      reply = await Promise.race([
        z.request<SessionOpenReply>({ op: 'sopen', sid, sessionCpuS: pool.opts.sessionCpuSeconds, ...(workdir ? { workdir } : {}) }),
        new Promise<'backstop'>((r) => (guard = setTimeout(() => r('backstop'), OPEN_TIMEOUT_MS + BACKSTOP_GRACE_MS))),
      ]).catch((e: Error) => e);
    } finally {
      clearTimeout(guard);
    }
    const fail = (why: string, anomaly?: string): ExecResult => {
      if (anomaly !== undefined) pool.retire(z, anomaly);
      if (workdir) void rm(workdir, { recursive: true, force: true }).catch(() => {});
      return sandboxErrorResult(`sandbox session failed to start: ${why}`);
    };
    if (reply === 'backstop') return fail('no reply', 'no reply to a session open');
    if (reply instanceof Error) return fail(reply.message, reply.message);
    if (reply.fatal !== undefined) return fail(reply.fatal, reply.fatal);
    if (!reply.opened || reply.pid === undefined) return fail(reply.error ?? 'unknown');
    z.sessions++;
    const live: Live = { z, sid, leaf: undefined, workdir };
    const cg = pool.cgroups;
    const workerLeaf = pool.leafOf(z);
    if (cg && workerLeaf !== undefined && pool.opts.memoryMb > 0) {
      // Into a leaf of its own before any of its code runs; fail closed if that is impossible.
      let leaf: string | undefined;
      try {
        leaf = cg.leaf(`s-${sid}`, pool.opts.memoryMb * MIB);
        const host = hostPidIn(cg, workerLeaf, reply.pid, pool.cfg.bwrap !== undefined);
        if (host === undefined) throw new SandboxUnavailableError(`session process ${reply.pid} not found in its worker's cgroup`);
        cg.addPid(leaf, host);
      } catch (e) {
        await this.#end({ ...live, leaf }, true, true);
        return sandboxErrorResult(`sandbox session memory limit could not be set: ${(e as Error).message}`);
      }
      return { ...live, leaf };
    }
    return live;
  }

  /** Runs one call on the live interpreter (inside its worker's exclusive section). */
  async #call(live: Live, req: RunRequest): Promise<{ result: ExecResult; ended: boolean }> {
    const pool = this.#pool;
    const o = pool.opts;
    const timeoutMs = req.timeoutMs ?? this.#timeoutMs;
    const started = performance.now();
    let guard: NodeJS.Timeout | undefined;
    const reply = await Promise.race([
      live.z.request<ZygoteReply>({
        op: 'srun',
        sid: live.sid,
        code: req.code,
        timeoutMs,
        cpuS: cpuSecondsFor(timeoutMs),
        capBytes: o.maxOutputBytes,
        ...(req.stdin === undefined ? {} : { stdin: req.stdin }),
      }),
      new Promise<'backstop'>((r) => (guard = setTimeout(() => r('backstop'), timeoutMs + BACKSTOP_GRACE_MS))),
    ])
      .catch((e: Error) => e)
      .finally(() => clearTimeout(guard));
    live.z.calls++;
    const wallMs = performance.now() - started;
    if (reply === 'backstop') {
      pool.retire(live.z, 'no reply before the deadline');
      return { result: { ...sandboxErrorResult(''), status: 'timeout', wallMs }, ended: true };
    }
    if (reply instanceof Error || reply.fatal !== undefined) {
      const why = reply instanceof Error ? reply.message : reply.fatal!;
      pool.retire(live.z, why);
      return { result: sandboxErrorResult(`sandbox zygote died: ${why}`, wallMs), ended: true };
    }
    if (reply.gone) return { result: sandboxErrorResult('sandbox session was lost', wallMs), ended: true };
    const result = replyResult(reply, o.maxFileBytes);
    if (reply.broken) {
      // The program broke the channel the runtime answers on (e.g. replaced a module it uses): its own error.
      const note = '[agentrl] the session ended: the program broke the interpreter runtime (its reply was malformed)';
      return { result: { ...result, status: 'error', stderr: result.stderr ? `${result.stderr}\n${note}` : note }, ended: true };
    }
    return { result, ended: reply.ended === true };
  }

  /**
   * Ends interpreter `live`: asks its worker to kill it (when `kill` and the worker still runs;
   * `inLock`: the caller already holds the worker's exclusive section), frees its leaf and workdir.
   */
  async #end(live: Live, kill: boolean, inLock: boolean): Promise<void> {
    const pool = this.#pool;
    if (kill && pool.isCurrent(live.z)) {
      const close = () => live.z.request({ op: 'sclose', sid: live.sid });
      await (inLock ? close() : live.z.exclusive(close)).catch(() => {});
    }
    live.z.sessions = Math.max(0, live.z.sessions - 1);
    if (live.leaf !== undefined && pool.cgroups) removeLeafSoon(pool.cgroups, live.leaf);
    if (live.workdir) await rm(live.workdir, { recursive: true, force: true }).catch(() => {});
  }
}
