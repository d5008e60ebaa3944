import { createRequire } from 'node:module';
import { z } from '../../src/util/zod.js';
import type { ExecResult, RunRequest, Sandbox, SandboxSession, SessionOptions } from '../../src/types/exec-result.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { SandboxClosedError, SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';
import { IvmWorker, wireToResult, type IvmFailure } from './ivm-worker.js';
import { IvmSession } from './ivm-session.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** Options of {@link isolatedVmSandbox}. Sizes in MiB/bytes, times in ms. */
export interface IsolatedVmSandboxOptions {
  /** Isolate heap limit, MiB (isolated-vm's `memoryLimit`; a guideline, see docs). @default 64 */
  readonly memoryMb?: number;
  /** Default per-call wall-clock limit, ms (covers pending promises too). @default 5000 */
  readonly timeoutMs?: number;
  /** Bytes kept per stream (head and tail halves around a truncation marker). @default 65536 */
  readonly maxOutputBytes?: number;
  /** Total output bytes after which the call is stopped as `output_limit`. @default 16 MiB */
  readonly killAfterOutputBytes?: number;
  /** Child processes (each one isolate, one call at a time). @default 1 */
  readonly workers?: number;
  /** A worker process is replaced after this many calls. @default 5000 */
  readonly recycleAfter?: number;
  /** Extra time past the deadline before the parent SIGKILLs an unresponsive worker, ms. @default 2000 */
  readonly backstopGraceMs?: number;
}

const schema = z.strictObject({
  memoryMb: z.number().int().min(8).max(8192).optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().min(64).optional(),
  killAfterOutputBytes: z.number().int().positive().optional(),
  workers: z.number().int().min(1).max(256).optional(),
  recycleAfter: z.number().int().positive().optional(),
  backstopGraceMs: z.number().int().min(0).optional(),
});

/** A {@link Sandbox} running JavaScript in isolated-vm, with worker introspection for tests. */
export interface IsolatedVmSandbox extends Sandbox {
  /** Unique id; it appears in every worker's argv (`agentrl-ivm-<id>`), for process listings. */
  readonly instanceId: string;
  /** Pids of live worker processes (sessions' workers included). */
  workerPids(): number[];
  /** Always `true`: every session is a worker process of its own. */
  readonly supportsSessions: true;
  /** Opens a session: a worker process of its own whose context persists (see {@link IvmSession}). */
  openSession(options?: SessionOptions): Promise<SandboxSession>;
}

/**
 * JavaScript sandbox on isolated-vm 5.x, run inside child processes started with
 * `node --no-node-snapshot` (required on Node ≥ 20), so a catastrophic isolate failure (V8
 * abort on an allocation blow-up, isolated-vm#527) kills a worker, never the trainer; the worker is
 * respawned. Each call gets a fresh context in a reused isolate (~1 ms); the code is the body of an
 * async function, `console.*` is captured (log/info/debug → stdout, error/warn → stderr), a thrown
 * error or rejected promise → its stack on stderr and exit code 1. No `require`, no Node APIs, no
 * network, no filesystem inside; `stdin` is not supported (ignored).
 *
 * Sessions (`openSession`): a worker process per session, one context kept between its calls.
 *
 * Statuses: `ok`, `error`, `timeout` (sync loop via isolated-vm's `timeout`; pending promises via
 * an outer deadline that disposes the isolate; a silent worker via a SIGKILL backstop),
 * `memory` (isolate memory limit; an uncaught refused allocation; a deadline met with the heap at 80 % of the limit
 * or more; or the worker process died — usually heap exhaustion),
 * `output_limit`, `sandbox_error`.
 * @throws ConfigError (synchronously) for invalid options.
 * @throws SandboxUnavailableError (from `run`) when isolated-vm cannot be loaded (not built).
 * @throws SandboxClosedError after `close()`.
 */
export function isolatedVmSandbox(options: IsolatedVmSandboxOptions = {}): IsolatedVmSandbox {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    throw new ConfigError(
      'isolatedVmSandbox options',
      parsed.error.issues.map((i) => ({ path: ['isolatedVm', ...i.path.map(String)].join('.'), message: i.message })),
    );
  }
  const memoryMb = options.memoryMb ?? 64;
  const timeoutMsDefault = options.timeoutMs ?? 5000;
  const maxOutputBytes = options.maxOutputBytes ?? 65_536;
  const killAfterBytes = options.killAfterOutputBytes ?? 16 * 1024 * 1024;
  const size = options.workers ?? 1;
  const recycleAfter = options.recycleAfter ?? 5000;
  const graceMs = options.backstopGraceMs ?? 2000;

  const instanceId = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let ivmPath: string | undefined;
  const idle: IvmWorker[] = [];
  const all = new Set<IvmWorker>();
  const sessionWorkers = new Set<IvmWorker>();
  const waiters: { resolve: (w: IvmWorker) => void; reject: (e: unknown) => void }[] = [];
  let closed = false;
  let nextId = 1;

  function resolveIvm(): string {
    if (ivmPath) return ivmPath;
    try {
      const req = createRequire(import.meta.url);
      const p = req.resolve('isolated-vm');
      req(p);
      ivmPath = p;
      return p;
    } catch (cause) {
      throw new SandboxUnavailableError('isolated-vm is not installed or not built (run `npm rebuild isolated-vm`; it needs python3, make and g++)', { cause });
    }
  }

  function spawnWorker(): IvmWorker {
    const w: IvmWorker = new IvmWorker({
      ivmPath: resolveIvm(),
      memoryMb,
      marker: `agentrl-ivm-${instanceId}`,
      onDeath: () => {
        all.delete(w);
        const i = idle.indexOf(w);
        if (i >= 0) idle.splice(i, 1);
        if (!closed && waiters.length > 0) release(spawnWorker());
      },
    });
    all.add(w);
    return w;
  }

  function release(w: IvmWorker): void {
    const next = waiters.shift();
    if (next) next.resolve(w);
    else idle.push(w);
  }

  function acquire(signal?: AbortSignal): Promise<IvmWorker> {
    const w = idle.shift();
    if (w) return Promise.resolve(w);
    if (all.size < size) return Promise.resolve(spawnWorker());
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = waiters.indexOf(entry);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const entry = {
        resolve: (x: IvmWorker) => {
          unwatch();
          resolve(x);
        },
        reject: (e: unknown) => {
          unwatch();
          reject(e);
        },
      };
      const unwatch = watchAbort(signal, onAbort);
      waiters.push(entry);
    });
  }

  function failure(f: IvmFailure, timeoutMs: number, wallMs: number): ExecResult {
    if (f.kind === 'backstop') {
      return {
        status: 'timeout',
        exitCode: null,
        signal: 'SIGKILL',
        stdout: '',
        stderr: `worker killed: no reply within ${timeoutMs} ms`,
        truncated: false,
        wallMs,
      };
    }
    return { status: 'memory', exitCode: null, signal: null, stdout: '', stderr: `isolated-vm worker died: ${f.detail}`, truncated: false, wallMs };
  }

  return {
    name: 'isolated-vm',
    instanceId,

    async run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
      if (closed) throw new SandboxClosedError();
      signal?.throwIfAborted();
      resolveIvm();
      const w = await acquire(signal);
      if (closed) {
        void w.destroy();
        throw new SandboxClosedError();
      }
      const timeoutMs = req.timeoutMs ?? timeoutMsDefault;
      const t0 = performance.now();
      try {
        await w.ready;
      } catch (e) {
        if (w.alive) void w.destroy();
        throw new SandboxUnavailableError(`isolated-vm worker failed to start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      const unwatch = watchAbort(signal, () => w.kill());
      let out: Awaited<ReturnType<typeof w.call>>;
      try {
        out = await w.call({ id: nextId++, code: req.code, timeoutMs, maxOutputBytes, killAfterBytes }, timeoutMs + graceMs);
      } finally {
        unwatch();
      }
      if (signal?.aborted) throw signal.reason;
      if (closed) throw new SandboxClosedError();
      if ('kind' in out) return failure(out, timeoutMs, performance.now() - t0);
      if (!w.alive || closed || w.calls >= recycleAfter) {
        void w.destroy(); // its exit hands a fresh worker to any waiter (onDeath)
      } else {
        release(w);
      }
      return wireToResult(out);
    },

    supportsSessions: true,

    async openSession(o: SessionOptions = {}): Promise<SandboxSession> {
      if (closed) throw new SandboxClosedError();
      return new IvmSession({
        ivmPath: resolveIvm,
        memoryMb,
        marker: `agentrl-ivm-${instanceId}`,
        timeoutMs: o.timeoutMs ?? timeoutMsDefault,
        maxOutputBytes,
        killAfterBytes,
        graceMs,
        failure,
        closed: () => closed,
        track: (w) => {
          sessionWorkers.add(w);
          return () => sessionWorkers.delete(w);
        },
      });
    },

    workerPids(): number[] {
      return [...all, ...sessionWorkers].filter((w) => w.alive).map((w) => w.pid ?? -1);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      idle.length = 0;
      const err = new SandboxClosedError();
      for (const w of waiters.splice(0)) w.reject(err);
      await Promise.all([...all, ...sessionWorkers].map((w) => w.destroy()));
      all.clear();
      sessionWorkers.clear();
    },
  };
}
