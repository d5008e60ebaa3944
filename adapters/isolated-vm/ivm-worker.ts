import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { ExecResult, ExecStatus } from '../../src/types/exec-result.js';
import { renderCapped } from '../../src/sandbox/output.js';
import { WORKER_SOURCE } from './worker-source.js';
import { SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';

/** One call as sent to the child. */
export interface IvmCall {
  readonly id: number;
  readonly code: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killAfterBytes: number;
  /** Session mode: keep the context between calls (the worker serves one session). */
  readonly session?: boolean;
}

interface WireStream {
  readonly head: string;
  readonly tail: string;
  readonly total: number;
}

export interface WireResult {
  readonly type: 'result';
  readonly id: number;
  readonly status: ExecStatus;
  readonly exitCode: number | null;
  readonly stdout: WireStream;
  readonly stderr: WireStream;
  readonly wallMs: number;
  readonly cpuMs?: number;
  /** Session mode: a new context was made for this call. */
  readonly fresh?: boolean;
  /** Session mode: the isolate was disposed (timeout, flood, memory): the session's state is gone. */
  readonly ended?: boolean;
}

/** Why a call got no reply from the child. */
export type IvmFailure = { readonly kind: 'died'; readonly detail: string } | { readonly kind: 'backstop' };

/** Converts the child's wire result into an {@link ExecResult} (shared head/tail rendering). */
export function wireToResult(w: WireResult): ExecResult {
  const render = (s: WireStream) => renderCapped({ head: Buffer.from(s.head, 'base64'), tail: Buffer.from(s.tail, 'base64'), totalBytes: s.total });
  const out = render(w.stdout);
  const err = render(w.stderr);
  return {
    status: w.status,
    exitCode: w.exitCode,
    signal: null,
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    wallMs: w.wallMs,
    ...(typeof w.cpuMs === 'number' && Number.isFinite(w.cpuMs) ? { cpuMs: w.cpuMs } : {}),
  };
}

/**
 * Handle on one child process (`node --no-node-snapshot`, empty environment, cwd = OS temp dir)
 * that owns an isolate. One call at a time. If the child dies (a V8 abort on a memory blow-up,
 * a catastrophic isolate error) or misses the backstop deadline, the call fails with an
 * {@link IvmFailure} and the handle is dead; the pool starts a new one.
 */
export class IvmWorker {
  #dead = false;
  #stderrTail = '';
  #catastrophic = '';
  #pending: { id: number; resolve: (v: WireResult | IvmFailure) => void } | undefined;
  readonly #child: ChildProcess;
  readonly ready: Promise<void>;
  calls = 0;

  constructor(opts: { readonly ivmPath: string; readonly memoryMb: number; readonly marker: string; readonly onDeath: () => void }) {
    // `marker` only tags the argv (process listings, leak checks); the worker ignores it.
    this.#child = spawn(process.execPath, ['--no-node-snapshot', '--max-old-space-size=256', '-e', WORKER_SOURCE, opts.marker], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { AGENTRL_IVM_PATH: opts.ivmPath, AGENTRL_IVM_MEMORY_MB: String(opts.memoryMb) },
      cwd: tmpdir(),
      serialization: 'json',
    });
    this.#child.stderr?.on('data', (c: Buffer) => {
      this.#stderrTail = (this.#stderrTail + c.toString('utf8')).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const onMsg = (m: unknown): void => {
        if ((m as { type?: unknown })?.type === 'ready') {
          this.#child.off('message', onMsg);
          resolve();
        }
      };
      this.#child.on('message', onMsg);
      this.#child.once('exit', () => reject(new SandboxUnavailableError(`isolated-vm worker exited before ready: ${this.#stderrTail.slice(-500)}`)));
    });
    this.ready.catch(() => undefined);
    this.#child.on('message', (m: unknown) => this.#onMessage(m));
    this.#child.on('error', () => this.#die(opts.onDeath));
    this.#child.on('exit', () => this.#die(opts.onDeath));
  }

  /** Child pid (tests use it to check the trainer survives a crash). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  get alive(): boolean {
    return !this.#dead;
  }

  #onMessage(m: unknown): void {
    const msg = m as { type?: unknown; id?: unknown; message?: unknown };
    if (msg?.type === 'catastrophic') {
      this.#catastrophic = String(msg.message);
      return;
    }
    if (msg?.type === 'result' && this.#pending && msg.id === this.#pending.id) {
      const p = this.#pending;
      this.#pending = undefined;
      p.resolve(m as WireResult);
    }
  }

  #die(onDeath: () => void): void {
    if (this.#dead) return;
    this.#dead = true;
    const p = this.#pending;
    this.#pending = undefined;
    p?.resolve({ kind: 'died', detail: (this.#catastrophic || this.#stderrTail).slice(-800) });
    onDeath();
  }

  /** Runs one call; resolves with the child's result or an {@link IvmFailure}. Never rejects. */
  call(c: IvmCall, backstopMs: number): Promise<WireResult | IvmFailure> {
    if (this.#dead) return Promise.resolve({ kind: 'died', detail: 'worker is dead' });
    this.calls += 1;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.#pending?.id === c.id) this.#pending = undefined;
        resolve({ kind: 'backstop' });
        this.kill();
      }, backstopMs);
      this.#pending = {
        id: c.id,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      };
      this.#child.send(c);
    });
  }

  /** SIGKILLs the child. */
  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
  }

  /** Resolves once the child has exited (kills it first). */
  async destroy(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.#child.once('exit', () => r()));
    this.kill();
    await exited;
  }
}
