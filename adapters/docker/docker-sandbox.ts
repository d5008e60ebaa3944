import Docker from 'dockerode';
import type { ContainerCreateOptions } from 'dockerode';
import type { ExecResult, RunRequest, Sandbox, SandboxSession, SessionOptions } from '../../src/types/exec-result.js';
import { SandboxClosedError, SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';
import { ContainerSlot, type SlotFailure } from './container-slot.js';
import { replyToResult, type RunnerReply } from './protocol.js';
import { CONTAINER_RUNNER_SOURCE } from '../local/python/sources.js';
import { DockerSession } from './docker-session.js';
import { resolveDockerOptions, type DockerSandboxOptions, type ResolvedDockerOptions } from './options.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** Label put on every container this adapter creates (`docker ps --filter label=agentrl.sandbox`). */
export const SANDBOX_LABEL = 'agentrl.sandbox';

/** A {@link Sandbox} backed by a warm pool of hardened containers, with pool introspection. */
export interface DockerSandbox extends Sandbox {
  /** Value of the `agentrl.pool` label on this sandbox's containers. */
  readonly poolId: string;
  /** Resolves when `poolSize` containers are up (or rejects with the first start failure). */
  ready(): Promise<void>;
  /** Always `true`: every session holds one container of the pool (see `openSession`). */
  readonly supportsSessions: true;
  /**
   * Opens a session: a container of the pool held for the session's life (see {@link DockerSession});
   * at most `poolSize` sessions and calls at once, the rest wait for a container.
   * @throws SandboxClosedError after `close()`.
   */
  openSession(options?: SessionOptions): Promise<SandboxSession>;
  /** Live pool counters, for tests and metrics. */
  stats(): { readonly idle: number; readonly busy: number; readonly starting: number; readonly retired: number; readonly waiting: number };
}

interface Waiter {
  resolve(slot: ContainerSlot): void;
  reject(e: unknown): void;
}

/** Builds the `createContainer` body: every hardening flag from the design notes. */
export function containerSpec(o: ResolvedDockerOptions, poolId: string): ContainerCreateOptions {
  return {
    Image: o.image,
    Cmd: [o.python, '-I', '-c', CONTAINER_RUNNER_SOURCE, JSON.stringify(o.preload), JSON.stringify(o.warmup)],
    User: '65534:65534',
    WorkingDir: '/tmp',
    Env: Object.entries(o.env).map(([k, v]) => `${k}=${v}`),
    Tty: false,
    OpenStdin: true,
    StdinOnce: false,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: true,
    Labels: { [SANDBOX_LABEL]: 'docker', 'agentrl.pool': poolId },
    HostConfig: {
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${o.tmpfsMb}m,mode=1777` },
      ShmSize: 1024 * 1024,
      Memory: o.memoryMb * 1024 * 1024,
      MemorySwap: o.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(o.cpus * 1e9),
      PidsLimit: o.pidsLimit,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Init: true,
      Ulimits: [
        { Name: 'core', Soft: 0, Hard: 0 },
        { Name: 'nofile', Soft: 256, Hard: 256 },
      ],
      LogConfig: { Type: 'none', Config: {} },
      Binds: [...o.binds],
      ...(o.runtime ? { Runtime: o.runtime } : {}),
    },
  };
}

/**
 * Docker sandbox: a warm pool of `poolSize` hardened containers (no network, read-only root,
 * size-capped `/tmp` tmpfs, `Memory` = `MemorySwap`, `NanoCpus`, `PidsLimit`, uid 65534, all
 * capabilities dropped, `no-new-privileges`, an init process), each running one long-lived Python
 * runner that forks a fresh child per call (see `protocol.ts` and adapters/local/python/container.py) — no `docker exec` per call.
 *
 * Calls queue for a free container. A call that ends in `timeout`, `memory` or `output_limit`, a
 * runner that dies, or a container past `recycleAfter` calls is killed and removed, and a
 * replacement starts in the background. The runner enforces each call's deadline inside the
 * container; the host kills the container `backstopGraceMs` after the deadline if it has not
 * answered, so no call outlives `timeoutMs + backstopGraceMs`.
 *
 * `run` resolves with an {@link ExecResult} for every outcome of the code, including a container
 * that dies mid-call (`memory` when Docker reports `OOMKilled`, else `sandbox_error`).
 * @throws SandboxUnavailableError (from `run`) when no container can be started (daemon
 *   unreachable, image missing) — the next call tries again.
 * @throws SandboxClosedError (from `run`) after `close()`; the abort reason when `signal` aborts.
 * @throws ConfigError (synchronously) for invalid options.
 */
export function dockerSandbox(options: DockerSandboxOptions): DockerSandbox {
  const o = resolveDockerOptions(options);
  const docker = options.docker ?? new Docker();
  const poolId = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const spec = containerSpec(o, poolId);
  const idle: ContainerSlot[] = [];
  const busy = new Set<ContainerSlot>();
  const waiters: Waiter[] = [];
  let starting = 0;
  let retired = 0;
  let closed = false;
  let nextId = 1;
  let lastStartError: unknown;
  let firstFill: Promise<void> | undefined;
  const startJobs = new Set<Promise<void>>();

  const live = (): number => idle.length + busy.size + starting;

  function handOut(slot: ContainerSlot): void {
    const w = waiters.shift();
    if (w) {
      busy.add(slot);
      w.resolve(slot);
    } else {
      idle.push(slot);
    }
  }

  function retire(slot: ContainerSlot): void {
    busy.delete(slot);
    const i = idle.indexOf(slot);
    if (i >= 0) idle.splice(i, 1);
    retired += 1;
    void slot.destroy();
    refill();
  }

  async function startOne(): Promise<void> {
    starting += 1;
    try {
      let started: ContainerSlot | undefined;
      const slot = await ContainerSlot.start(docker, spec, {
        startTimeoutMs: o.startTimeoutMs,
        onDeath: () => {
          // Died while idle: drop it. Died while busy: the call's handler retires it.
          if (started && idle.includes(started)) retire(started);
        },
      });
      started = slot;
      starting -= 1;
      if (closed) {
        await slot.destroy();
        return;
      }
      lastStartError = undefined;
      handOut(slot);
    } catch (e) {
      starting -= 1;
      lastStartError = e;
      if (live() === 0) {
        const err = new SandboxUnavailableError(`docker sandbox: cannot start a container: ${describe(e)}`, { cause: e });
        for (const w of waiters.splice(0)) w.reject(err);
      }
    }
  }

  /** Starts containers until the pool is full again. Never rejects; failures land in `lastStartError`. */
  function refill(): Promise<void> {
    if (closed) return Promise.resolve();
    const jobs: Promise<void>[] = [];
    while (live() < o.poolSize) {
      const job = startOne();
      startJobs.add(job);
      void job.finally(() => startJobs.delete(job));
      jobs.push(job);
    }
    return Promise.all(jobs).then(() => undefined);
  }

  function acquire(signal?: AbortSignal): Promise<ContainerSlot> {
    const slot = idle.shift();
    if (slot) {
      busy.add(slot);
      return Promise.resolve(slot);
    }
    return new Promise<ContainerSlot>((resolve, reject) => {
      const onAbort = (): void => {
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const w: Waiter = {
        resolve: (s) => {
          unwatch();
          resolve(s);
        },
        reject: (e) => {
          unwatch();
          reject(e);
        },
      };
      const unwatch = watchAbort(signal, onAbort);
      waiters.push(w);
      if (live() < o.poolSize) void refill();
    });
  }

  function failureResult(f: SlotFailure, timeoutMs: number, startedAt: number): ExecResult {
    const wallMs = performance.now() - startedAt;
    if (f.kind === 'backstop') {
      return { status: 'timeout', exitCode: null, signal: 'SIGKILL', stdout: '', stderr: `killed: no reply within ${timeoutMs} ms`, truncated: false, wallMs };
    }
    if (f.kind === 'died' && f.oomKilled) {
      return { status: 'memory', exitCode: null, signal: 'SIGKILL', stdout: '', stderr: 'container killed: out of memory', truncated: false, wallMs };
    }
    const detail = f.kind === 'died' ? f.detail : '';
    return {
      status: 'sandbox_error',
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: `sandbox runner died${detail ? `: ${detail}` : ''}`,
      truncated: false,
      wallMs,
    };
  }

  const sandbox: DockerSandbox = {
    name: 'docker',
    poolId,
    supportsSessions: true,

    async openSession(so: SessionOptions = {}): Promise<SandboxSession> {
      if (closed) throw new SandboxClosedError();
      return new DockerSession({
        acquire: (signal) => {
          if (!firstFill) firstFill = refill();
          return acquire(signal);
        },
        release: (slot) => {
          busy.delete(slot);
          handOut(slot);
        },
        retire,
        failureResult,
        nextId: () => nextId++,
        closed: () => closed,
        timeoutMs: so.timeoutMs ?? o.timeoutMs,
        maxOutputBytes: o.maxOutputBytes,
        killAfterOutputBytes: o.killAfterOutputBytes,
        backstopGraceMs: o.backstopGraceMs,
      });
    },

    async run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
      if (closed) throw new SandboxClosedError();
      signal?.throwIfAborted();
      if (!firstFill) firstFill = refill();
      const slot = await acquire(signal);
      if (closed) {
        retire(slot);
        throw new SandboxClosedError();
      }
      const timeoutMs = req.timeoutMs ?? o.timeoutMs;
      const startedAt = performance.now();
      const out = await slot.call(
        {
          id: nextId++,
          code: req.code,
          stdin: req.stdin ?? null,
          timeout_ms: timeoutMs,
          max_output_bytes: o.maxOutputBytes,
          kill_after_bytes: o.killAfterOutputBytes,
        },
        timeoutMs + o.backstopGraceMs,
        signal,
      );
      if ('kind' in out) {
        retire(slot);
        if (out.kind === 'aborted') throw out.reason;
        if (closed) throw new SandboxClosedError();
        return failureResult(out, timeoutMs, startedAt);
      }
      const result = replyToResult(out as RunnerReply);
      const anomaly = result.status === 'timeout' || result.status === 'memory' || result.status === 'output_limit' || result.status === 'sandbox_error';
      if (anomaly || slot.calls >= o.recycleAfter || !slot.alive || closed) {
        retire(slot);
      } else {
        busy.delete(slot);
        handOut(slot);
      }
      return result;
    },

    async ready(): Promise<void> {
      if (closed) throw new SandboxClosedError();
      if (!firstFill) firstFill = refill();
      await firstFill;
      if (live() < o.poolSize) await refill();
      if (idle.length + busy.size < o.poolSize && lastStartError !== undefined) {
        throw new SandboxUnavailableError(`docker sandbox: cannot start a container: ${describe(lastStartError)}`, { cause: lastStartError });
      }
    },

    stats() {
      return { idle: idle.length, busy: busy.size, starting, retired, waiting: waiters.length };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const err = new SandboxClosedError();
      for (const w of waiters.splice(0)) w.reject(err);
      const all = [...idle.splice(0), ...busy];
      busy.clear();
      await Promise.all(all.map((s) => s.destroy()));
      // Containers still starting destroy themselves when they come up (see startOne).
      await Promise.all([...startJobs]);
    },
  };
  return sandbox;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
