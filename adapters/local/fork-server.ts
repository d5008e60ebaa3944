import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecResult, RunRequest } from '../../src/types/exec-result.js';
import { classifyOutcome, renderCapped, sandboxErrorResult } from '../../src/sandbox/index.js';
import type { ResolvedLocalOptions, LocalSandboxWarning } from './options.js';
import { ZygoteServer, signalName, type ZygoteConfig } from './zygote-server.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** Extra time the Node side waits for a zygote's own deadline before killing the whole zygote, ms. */
const BACKSTOP_GRACE_MS = 2000;
/** Longest a zygote may take to import `preload` and run `warmup`, ms. */
const START_TIMEOUT_MS = 120_000;

/** Seconds of CPU allowed for a call with wall limit `timeoutMs` (soft; hard is one more). */
export function cpuSecondsFor(timeoutMs: number): number {
  return Math.ceil(timeoutMs / 1000) + 1;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Pool of zygote servers, one per worker slot (each with a full and a light zygote). The caller
 * bounds concurrency to `workers`, so a free server always exists. Each call: take a server, send
 * the request, wait for the reply with a Node-side backstop (`timeoutMs + 2 s`) that kills the
 * server's whole sandbox; recycle the server after `recycleAfter` calls or any anomaly.
 */
export class ForkServerPool {
  readonly #opts: ResolvedLocalOptions;
  readonly #cfg: ZygoteConfig;
  readonly #warn: (w: LocalSandboxWarning) => void;
  readonly #idle: ZygoteServer[] = [];
  readonly #all = new Set<ZygoteServer>();
  #closed = false;

  constructor(opts: ResolvedLocalOptions, cfg: ZygoteConfig, warn: (w: LocalSandboxWarning) => void) {
    this.#opts = opts;
    this.#cfg = cfg;
    this.#warn = warn;
    for (let i = 0; i < opts.workers; i++) this.#idle.push(this.#start());
  }

  #start(): ZygoteServer {
    const z = new ZygoteServer(this.#cfg);
    this.#all.add(z);
    void z.exited().then(() => this.#all.delete(z));
    z.ready.then(
      ({ preloadFailed }) => {
        if (preloadFailed.length) this.#warn({ code: 'PRELOAD_FAILED', message: `preload failed: ${preloadFailed.join('; ')}` });
      },
      () => {},
    );
    return z;
  }

  #take(): ZygoteServer {
    let z = this.#idle.pop();
    if (!z || z.dead) z = this.#start();
    return z;
  }

  #give(z: ZygoteServer, anomaly: string | undefined): void {
    if (anomaly !== undefined || z.calls >= this.#opts.recycleAfter || z.dead || this.#closed) {
      z.kill(anomaly ?? 'recycled');
      if (anomaly !== undefined) this.#warn({ code: 'ZYGOTE_RECYCLED', message: `zygote replaced after: ${anomaly}` });
      if (!this.#closed) this.#idle.push(this.#start());
    } else this.#idle.push(z);
  }

  /** Runs one call on a free zygote. Resolves with a result; rejects only on abort. */
  async run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    const o = this.#opts;
    const timeoutMs = req.timeoutMs ?? o.timeoutMs;
    const z = this.#take();
    let anomaly: string | undefined;
    let workdir: string | undefined;
    try {
      // Ref'd timer: keeps Node alive while the (unref'd) zygote starts, and bounds the start.
      const startGuard = setTimeout(() => z.kill(`zygote not ready after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      try {
        await z.ready;
      } catch (e) {
        anomaly = 'start failure';
        return sandboxErrorResult(`sandbox zygote failed to start: ${(e as Error).message}`);
      } finally {
        clearTimeout(startGuard);
      }
      if (signal?.aborted) throw abortError(signal);
      if (this.#cfg.bwrap === undefined) workdir = await mkdtemp(join(tmpdir(), 'agentrl-call-'));
      const started = performance.now();
      let backstop: NodeJS.Timeout | undefined;
      let unwatch = (): void => undefined;
      const reply = await new Promise<Awaited<ReturnType<ZygoteServer['run']>> | 'backstop' | Error>((resolve, reject) => {
        backstop = setTimeout(() => resolve('backstop'), timeoutMs + BACKSTOP_GRACE_MS);
        if (signal) unwatch = watchAbort(signal, () => reject(abortError(signal)));
        z.run({
          code: req.code,
          timeoutMs,
          cpuS: cpuSecondsFor(timeoutMs),
          capBytes: o.maxOutputBytes,
          ...(req.stdin === undefined ? {} : { stdin: req.stdin }),
          ...(workdir === undefined ? {} : { workdir }),
        }).then(resolve, (e: Error) => resolve(e));
      }).finally(() => {
        clearTimeout(backstop);
        unwatch();
      }).catch((e: unknown) => {
        anomaly = 'abort';
        throw e;
      });
      const wallMs = performance.now() - started;
      if (reply === 'backstop') {
        anomaly = 'no reply before the deadline';
        return { ...sandboxErrorResult(''), status: 'timeout', wallMs };
      }
      if (reply instanceof Error) {
        anomaly = reply.message;
        return sandboxErrorResult(`sandbox zygote died: ${reply.message}`, wallMs);
      }
      if (reply.fatal !== undefined) {
        anomaly = reply.fatal;
        return sandboxErrorResult(`sandbox zygote failed: ${reply.fatal}`, wallMs);
      }
      const text = (part: [string, string, number]) =>
        renderCapped({ head: Buffer.from(part[0], 'base64'), tail: Buffer.from(part[1], 'base64'), totalBytes: part[2] });
      const stdout = text(reply.stdout);
      const stderr = text(reply.stderr);
      if (!reply.setupOk) {
        anomaly = 'call setup failed';
        return sandboxErrorResult(`sandbox setup failed: ${stderr.text}`, reply.wallMs);
      }
      return classifyOutcome({
        timedOut: reply.timedOut,
        outputLimited: reply.outputKilled || Math.max(reply.stdout[2], reply.stderr[2]) >= o.maxFileBytes,
        exitCode: reply.exitCode,
        signal: signalName(reply.signal),
        stdout,
        stderr,
        wallMs: reply.wallMs,
        cpuMs: reply.cpuMs,
      });
    } finally {
      this.#give(z, anomaly);
      if (workdir) void rm(workdir, { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Kills every zygote (and with it every call sandbox) and waits for them to exit. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#all];
    for (const z of all) z.kill('sandbox closed');
    this.#idle.length = 0;
    await Promise.all(all.map((z) => z.exited()));
  }
}
