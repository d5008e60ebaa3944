import { processesWithMarker } from '../../src/sandbox/proc-scan.js';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { EventEmitter } from 'eventemitter3';
import pLimit from 'p-limit';
import type { ExecResult, RunRequest, Sandbox, SandboxSession, SessionOptions } from '../../src/types/exec-result.js';
import { SandboxClosedError, SessionsNotSupportedError } from '../../src/errors/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { resolveLocalOptions, type LocalSandboxOptions, type LocalSandboxWarning } from './options.js';
import { PROTECTIONS_OFF_WITHOUT_BWRAP, SANDBOX_HOST_ID, pathsToHide, probeBwrap, type RunAs } from './isolation.js';
import { ForkServerPool } from './fork-server.js';
import { runSpawned } from './spawn-runner.js';
import { LocalSession } from './local-session.js';
import { openMemoryCgroups, type MemoryCgroups, type MemoryControl } from './cgroup.js';

/** Events of a {@link LocalSandbox}. */
export interface LocalSandboxEvents {
  /** A degraded protection or a recycled worker (see {@link LocalSandboxWarning}); without a listener warnings go to `console.warn`. */
  warning: (w: LocalSandboxWarning) => void;
}

/** The local subprocess sandbox: a {@link Sandbox} plus what it actually enforces and a `warning` event. */
export interface LocalSandbox extends Sandbox {
  /** Always `'local'`. */
  readonly name: 'local';
  /** `fork-server`: calls fork from warm, preloaded zygote processes; `spawn`: one fresh interpreter per call. */
  readonly mode: 'fork-server' | 'spawn';
  /** `bwrap` when every call runs in its own PID/net/mount namespaces; `none` in the fallback. */
  readonly isolation: 'bwrap' | 'none';
  /** Random id put in the argv of every process this sandbox starts (find leftovers with it). */
  readonly instanceId: string;
  /** Calls waiting for a worker slot. */
  readonly pending: number;
  /**
   * How memory is bounded as a whole: `cgroup-v2` / `cgroup-v1` (each worker's calls and each session,
   * forks and shared memory included), or `rlimit` (RLIMIT_AS per process; memfd_create denied).
   */
  readonly memoryControl: MemoryControl;
  /** `true` in `fork-server` mode (sessions fork from the warm zygotes); `false` in `spawn` mode. */
  readonly supportsSessions: boolean;
  /**
   * Opens a stateful session (fork-server mode): see {@link LocalSession}.
   * @throws SessionsNotSupportedError (rejects) in `spawn` mode; SandboxClosedError after `close()`.
   */
  openSession(options?: SessionOptions): Promise<SandboxSession>;
  /** Subscribes `fn` to `event`; returns this sandbox. */
  on<E extends keyof LocalSandboxEvents>(event: E, fn: LocalSandboxEvents[E]): this;
  /** Unsubscribes `fn` from `event`; returns this sandbox. */
  off<E extends keyof LocalSandboxEvents>(event: E, fn: LocalSandboxEvents[E]): this;
}

class LocalSandboxImpl extends EventEmitter<LocalSandboxEvents> implements LocalSandbox {
  readonly name = 'local' as const;
  readonly mode: 'fork-server' | 'spawn';
  readonly isolation: 'bwrap' | 'none';
  readonly instanceId = `agentrl-local-${randomBytes(6).toString('hex')}`;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #pool: ForkServerPool | undefined;
  readonly #runOne: (req: RunRequest, signal?: AbortSignal) => Promise<ExecResult>;
  readonly #timeoutMs: number;
  readonly #cgroups: MemoryCgroups | undefined;
  readonly memoryControl: MemoryControl;
  readonly supportsSessions: boolean;
  #closed = false;

  constructor(options: LocalSandboxOptions) {
    super();
    const o = resolveLocalOptions(options);
    const warn = (w: LocalSandboxWarning): void => {
      o.onWarning?.(w);
      // Deferred so listeners attached right after construction still see start-up warnings.
      queueMicrotask(() => this.emit('warning', w));
    };
    this.mode = o.mode;
    const { hide, kept } = pathsToHide(o.python, o.hidePaths);
    for (const p of kept) warn({ code: 'PATH_NOT_HIDDEN', message: `the Python installation inside ${p} stays visible (read-only): the sandbox runs it` });
    let bwrap: string | undefined;
    let runAs: RunAs | undefined;
    if (o.isolation !== 'none') {
      const probe = probeBwrap(o.python, hide);
      if (probe.ok) {
        bwrap = probe.bwrap;
        runAs = probe.runAs;
        if (probe.rootReason !== undefined) {
          warn({
            code: 'SANDBOX_RUNS_AS_ROOT',
            message: `the trainer runs as root and the sandbox could not run as uid ${SANDBOX_HOST_ID.uid} (${probe.rootReason}); model code keeps root's file permissions (root-only files, Unix sockets are still blocked by seccomp) and no process-count limit`,
          });
        }
      } else if (o.isolation === 'bwrap') {
        throw new ConfigError('localSandbox options', [{ path: 'isolation', message: `'bwrap' requested but unusable: ${probe.reason}` }]);
      } else {
        warn({ code: 'ISOLATION_UNAVAILABLE', message: `${probe.reason}. Running WITHOUT isolation; off: ${PROTECTIONS_OFF_WITHOUT_BWRAP}` });
      }
    } else {
      warn({ code: 'ISOLATION_UNAVAILABLE', message: `isolation: 'none' requested; off: ${PROTECTIONS_OFF_WITHOUT_BWRAP}` });
    }
    this.isolation = bwrap ? 'bwrap' : 'none';
    this.#limit = pLimit(o.workers);
    this.#timeoutMs = o.timeoutMs;
    this.supportsSessions = o.mode === 'fork-server';
    if (o.mode === 'fork-server' && o.memoryMb > 0 && o.memoryControl === 'auto') {
      const cg = openMemoryCgroups(this.instanceId);
      if ('reason' in cg) {
        warn({
          code: 'MEMORY_NOT_BOUNDED',
          message: `no memory cgroup (${cg.reason}): memory is bounded per process (RLIMIT_AS), memfd_create is denied, /tmp and /dev/shm by tmpfsMb; forks of a call each get their own limit`,
        });
      } else this.#cgroups = cg;
    }
    this.memoryControl = this.#cgroups?.kind ?? 'rlimit';
    if (o.mode === 'fork-server') {
      const pool = new ForkServerPool(
        o,
        {
          python: o.python,
          bwrap,
          runAs,
          hide,
          preload: o.preload,
          lightPreload: o.lightPreload === false ? null : o.lightPreload,
          warmup: o.warmup,
          memoryMb: o.memoryMb,
          fileBytes: o.maxFileBytes,
          openFiles: o.openFiles,
          maxProcesses: o.maxProcesses,
          tmpfsMb: o.tmpfsMb,
          cwd: tmpdir(),
          instanceId: this.instanceId,
          denyMemfd: this.#cgroups === undefined && o.memoryMb > 0,
        },
        warn,
        this.#cgroups,
      );
      this.#pool = pool;
      this.#runOne = (req, signal) => pool.run(req, signal);
    } else {
      this.#runOne = (req, signal) => runSpawned(o, { bwrap, runAs, hide, instanceId: this.instanceId }, req, signal);
    }
  }

  get pending(): number {
    return this.#limit.pendingCount;
  }

  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    if (this.#closed) return Promise.reject(new SandboxClosedError());
    return this.#limit(() => {
      if (this.#closed) throw new SandboxClosedError();
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
      return this.#runOne(req, signal);
    });
  }

  openSession(options: SessionOptions = {}): Promise<SandboxSession> {
    if (this.#closed) return Promise.reject(new SandboxClosedError());
    const pool = this.#pool;
    if (!pool) return Promise.reject(new SessionsNotSupportedError('local', "sessions need mode 'fork-server'"));
    return Promise.resolve(new LocalSession(pool, (fn) => this.#limit(fn), options.timeoutMs ?? this.#timeoutMs));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true; // queued calls start, see the flag and reject with SandboxClosedError
    await this.#pool?.close();
    // The zygotes have exited, but the kernel reaps the processes of their PID namespaces just after; close()
    // promises that nothing of this sandbox is left running, so wait (bounded) until none carries its marker.
    const end = Date.now() + 5_000;
    while (processesWithMarker(this.instanceId).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    while (this.#cgroups && !this.#cgroups.removeAll() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The local Python sandbox.
 *
 * Every call: own PID namespace whose PID 1 is the call itself (killing it kills the namespace), own
 * IPC namespace, empty network namespace, a read-only view of the system directories and the Python
 * installation only (no projects, datasets or home dirs), read-only `/dev` and `/proc/sys`, fresh private tmpfs `/tmp` as cwd
 * and HOME, env reduced to {@link CHILD_ENV} (BLAS threads = 1), stdin `/dev/null` unless given,
 * rlimits CPU (soft `ceil(timeoutMs/1000)+1` s, hard +1), FSIZE (`maxFileBytes`), NOFILE, NPROC
 * (`maxProcesses`), CORE=0, AS (`memoryMb` over the interpreter's footprint), no capabilities,
 * `no_new_privs`, own session, and a seccomp filter (`socket()` for IP only: host Unix sockets such as
 * Docker's and vsock are not covered by the network namespace; no keyrings, no io_uring). A root trainer's sandbox runs
 * as host uid 65534 (`nobody`), so model code has no root file permissions and NPROC applies.
 * In `fork-server` mode each worker slot is one bubblewrap sandbox holding a small server and two
 * warm zygotes (all of `preload`, and `lightPreload`); a call is forked, ahead of time, from the
 * light zygote unless its code names a module only the full one has (see docs/sandboxes.md).
 * Wall-clock timeouts are enforced outside the child (the zygote server + Node backstop, or
 * the Node timer in `spawn` mode) with SIGKILL. Output: stdout/stderr to files capped by
 * RLIMIT_FSIZE, read back at most `maxOutputBytes` each (head + tail, explicit marker), decoded
 * with U+FFFD. Concurrency: at most `workers` calls (p-limit), the rest queue.
 *
 * Without a usable bubblewrap (`isolation: 'auto'`), it warns (`warning` event + `onWarning`) and
 * runs with process-group kill, rlimits, env allowlist and fresh cwd only; see
 * {@link PROTECTIONS_OFF_WITHOUT_BWRAP}.
 *
 * @throws ConfigError on invalid options or when `isolation: 'bwrap'` is requested but unusable.
 */
export function localSandbox(options: LocalSandboxOptions = {}): LocalSandbox {
  return new LocalSandboxImpl(options);
}
