import pLimit from 'p-limit';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { PYTHON_RUNTIME_SOURCE } from './python/sources.js';
import { CHILD_ENV, bwrapArgs, sandboxRoots, type RunAs } from './isolation.js';
import { SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';
import { InternalError } from '../../src/errors/internal-error.js';

/** Wire reply of the server for one call (see python/runtime.py `_finish`). */
export interface ZygoteReply {
  readonly id: number;
  readonly setupOk: boolean;
  readonly exitCode: number | null;
  readonly signal: number | null;
  readonly timedOut: boolean;
  /** The call was ended early by {@link ZygoteServer.cancel}. */
  readonly cancelled?: boolean;
  readonly outputKilled: boolean;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** `[headBase64, tailBase64, totalBytes]` */
  readonly stdout: [string, string, number];
  readonly stderr: [string, string, number];
  readonly fatal?: string;
  /** Session calls: the session's process ended with this call (timeout, crash, flood, broken frame). */
  readonly ended?: boolean;
  /** Session calls: the server holds no such session (it was lost). */
  readonly gone?: boolean;
  /** Session calls: the session answered with a malformed frame (its code broke the runtime's reply channel). */
  readonly broken?: boolean;
}

/** Reply of the server to `sopen` (see python/session.py). */
export interface SessionOpenReply {
  readonly id: number;
  readonly opened: boolean;
  /** The session process's pid in the worker's PID namespace. */
  readonly pid?: number;
  readonly error?: string;
  readonly fatal?: string;
}

/** One call sent to a zygote server. */
export interface ZygoteRequest {
  readonly code: string;
  readonly timeoutMs: number;
  readonly cpuS: number;
  readonly capBytes: number;
  readonly stdin?: string;
  /** Working dir on the host (only without isolation; with it the call gets a private tmpfs). */
  readonly workdir?: string;
}

/** How to start a zygote server. */
export interface ZygoteConfig {
  readonly python: string;
  readonly bwrap: string | undefined;
  /** Host uid/gid to run the bubblewrap sandbox as (a root trainer's sandbox runs as `nobody`). */
  readonly runAs: RunAs | undefined;
  readonly hide: readonly string[];
  readonly preload: readonly string[];
  /** Preload of the light zygote (calls whose code names no other `preload` module go there); `null`: no light zygote. */
  readonly lightPreload: readonly string[] | null;
  readonly warmup: string;
  readonly memoryMb: number;
  readonly fileBytes: number;
  readonly openFiles: number;
  readonly maxProcesses: number;
  readonly tmpfsMb: number;
  readonly cwd: string;
  /** Tag put in the argv (see `LocalSandbox.instanceId`). */
  readonly instanceId: string;
  /** seccomp denies memfd_create (no memory cgroup bounds a call's memfds). */
  readonly denyMemfd: boolean;
  /** Memory cgroup leaf (its `cgroup.procs` path) the worker's processes are put in before they run. */
  readonly cgroupProcs?: string;
}

const signalNames = new Map<number, string>(Object.entries(constants.signals).map(([k, v]) => [v, k]));
/** Signal number → name (`9` → `'SIGKILL'`). */
export function signalName(n: number | null): string | null {
  return n === null ? null : (signalNames.get(n) ?? `SIG${n}`);
}

/**
 * One worker slot: a small Python server process (inside its own bubblewrap sandbox when `bwrap`
 * is set) that forks two warm zygotes, one that pre-imported every `preload` module and a light
 * one (`lightPreload`). Each zygote forks a fresh, isolated call process per call, ahead of time,
 * with `CLONE_PARENT` so that the server (not the zygote) supervises and reaps it; the zygote
 * itself only forks, which keeps the pages it copies per call to a minimum. Calls are sequential.
 * See python/runtime.py.
 */
export class ZygoteServer {
  readonly #proc: ChildProcess;
  #buf = '';
  #stderrTail = '';
  #nextId = 1;
  #pending: { id: number; resolve: (r: never) => void; reject: (e: Error) => void } | undefined;
  /** One request at a time: {@link ZygoteServer.exclusive}. */
  readonly #exclusive = pLimit(1);
  /** Sessions living on this worker. */
  sessions = 0;
  /** Set when `cgroupProcs` was given but the worker could not be put in it. */
  cgroupError: string | undefined;
  #readyResolve!: (v: { preloadFailed: string[] }) => void;
  #readyReject!: (e: Error) => void;
  /** Resolves once preloading finished (with the modules that failed to import). */
  readonly ready: Promise<{ preloadFailed: string[] }>;
  calls = 0;
  dead = false;

  constructor(cfg: ZygoteConfig) {
    this.ready = new Promise((res, rej) => {
      this.#readyResolve = res;
      this.#readyReject = rej;
    });
    this.ready.catch(() => {});
    const pyCfg = JSON.stringify({
      mode: 'server',
      isolate: cfg.bwrap !== undefined,
      preload: cfg.preload,
      lightPreload: cfg.lightPreload,
      warmup: cfg.warmup,
      memoryMb: cfg.memoryMb,
      fileBytes: cfg.fileBytes,
      openFiles: cfg.openFiles,
      maxProcesses: cfg.maxProcesses,
      tmpfsKb: cfg.tmpfsMb * 1024,
      env: CHILD_ENV,
      instance: cfg.instanceId,
      denyMemfd: cfg.denyMemfd,
    });
    const py = [cfg.python, '-I', '-c', PYTHON_RUNTIME_SOURCE, pyCfg];
    let [cmd, args] = cfg.bwrap ? [cfg.bwrap, [...bwrapArgs('zygote', cfg.hide, sandboxRoots(cfg.python)), ...py]] : [py[0]!, py.slice(1)];
    // Into its memory cgroup before it runs anything: a shell waits on fd 3 until Node has moved it,
    // then execs the worker (so everything the worker forks starts inside the cgroup).
    if (cfg.cgroupProcs !== undefined) [cmd, args] = ['/bin/sh', ['-c', 'read _ <&3; exec 3<&-; exec "$@"', 'agentrl-sandbox', cmd, ...args]];
    this.#proc = spawn(cmd, args, {
      stdio: cfg.cgroupProcs !== undefined ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: cfg.bwrap ? {} : { ...CHILD_ENV },
      cwd: cfg.cwd,
      ...(cfg.bwrap && cfg.runAs ? cfg.runAs : {}),
    });
    this.#proc.stdout!.setEncoding('utf8');
    this.#proc.stdout!.on('data', (d: string) => this.#onData(d));
    this.#proc.stderr!.setEncoding('utf8');
    this.#proc.stderr!.on('data', (d: string) => {
      this.#stderrTail = (this.#stderrTail + d).slice(-2000);
    });
    this.#proc.stdin!.on('error', () => {});
    if (cfg.cgroupProcs !== undefined) {
      const gate = this.#proc.stdio[3] as import('node:stream').Writable | null;
      gate?.on('error', () => {});
      if (this.#proc.pid !== undefined) {
        try {
          writeFileSync(cfg.cgroupProcs, String(this.#proc.pid));
        } catch (e) {
          this.cgroupError = (e as Error).message;
        }
      }
      gate?.end('\n');
    }
    // An idle pool must not keep the trainer's process alive; pending calls hold ref'd timers.
    this.#proc.unref();
    for (const s of [this.#proc.stdin, this.#proc.stdout, this.#proc.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    this.#proc.on('error', (e) => this.#die(`zygote failed to start: ${e.message}`));
    this.#proc.on('exit', (code, sig) => this.#die(`zygote exited (${code ?? sig}): ${this.#stderrTail.trim()}`));
  }

  /** OS process id of the zygote's outermost process (bwrap, or python without isolation). */
  get pid(): number | undefined {
    return this.#proc.pid;
  }

  #onData(d: string): void {
    this.#buf += d;
    let nl: number;
    while ((nl = this.#buf.indexOf('\n')) >= 0) {
      const line = this.#buf.slice(0, nl);
      this.#buf = this.#buf.slice(nl + 1);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line) as Record<string, unknown>;
      } catch {
        this.kill(`zygote protocol error: ${line.slice(0, 200)}`);
        return;
      }
      if (msg.ready === true) {
        this.#readyResolve({ preloadFailed: (msg.preloadFailed as string[] | undefined) ?? [] });
        continue;
      }
      const p = this.#pending;
      if (p && msg.id === p.id) {
        this.#pending = undefined;
        p.resolve(msg as never);
      }
    }
  }

  #die(reason: string): void {
    if (!this.dead) this.dead = true;
    this.#readyReject(new SandboxUnavailableError(reason));
    const p = this.#pending;
    this.#pending = undefined;
    p?.reject(new SandboxUnavailableError(reason));
  }

  /** Sends one call; rejects if the zygote dies before answering. */
  run(req: ZygoteRequest): Promise<ZygoteReply> {
    this.calls++;
    return this.request<ZygoteReply>(req);
  }

  /** Sends one request (a call or a session operation) and resolves with its reply; rejects if the zygote dies first or is busy. */
  request<T>(req: object): Promise<T> {
    if (this.dead) return Promise.reject(new SandboxUnavailableError('zygote is dead'));
    if (this.#pending) return Promise.reject(new InternalError('zygote is busy'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending = { id, resolve: resolve as (r: never) => void, reject };
      this.#proc.stdin!.write(`${JSON.stringify({ id, ...req })}\n`);
    });
  }

  /**
   * Asks the server to end the running call now (its caller aborted); the call's answer still comes
   * (with `cancelled: true`), and the server stays usable. A session call (`srun`) is ended by killing the
   * session's process tree (`ended: true`). No-op when no call is running.
   */
  cancel(): void {
    if (this.dead || !this.#pending) return;
    this.#proc.stdin!.write('cancel\n');
  }

  /** Holders of and waiters for {@link ZygoteServer.exclusive}. */
  get queued(): number {
    return this.#exclusive.activeCount + this.#exclusive.pendingCount;
  }

  /** Runs `fn` once every earlier `exclusive` task of this worker has settled (one request at a time). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.#exclusive(fn);
  }

  /** SIGKILLs the zygote's process group (bubblewrap then takes the whole sandbox down with it). */
  kill(reason = 'zygote killed'): void {
    const pid = this.#proc.pid;
    if (pid !== undefined && this.#proc.exitCode === null && this.#proc.signalCode === null) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    this.#die(reason);
  }

  /** Resolves when the zygote process has exited. */
  exited(): Promise<void> {
    if (this.#proc.exitCode !== null || this.#proc.signalCode !== null) return Promise.resolve();
    // The process is unref'd while idle; whoever awaits its exit (close()) must keep the event loop alive,
    // or a top-level `await sandbox.close()` ends the program with "unsettled top-level await".
    this.#proc.ref();
    return new Promise((res) => this.#proc.once('exit', () => res()));
  }
}
