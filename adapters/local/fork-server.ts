import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecResult, RunRequest } from '../../src/types/exec-result.js';
import { classifyOutcome, renderCapped, sandboxErrorResult, type CappedText } from '../../src/sandbox/index.js';
import type { ResolvedLocalOptions, LocalSandboxWarning } from './options.js';
import { ZygoteServer, signalName, type ZygoteConfig, type ZygoteReply } from './zygote-server.js';
import type { MemoryCgroups } from './cgroup.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** Extra time the Node side waits for a zygote's own deadline before killing the whole zygote, ms. */
export const BACKSTOP_GRACE_MS = 2000;
/** Longest a zygote may take to import `preload` and run `warmup`, ms. */
const START_TIMEOUT_MS = 120_000;

/** Seconds of CPU allowed for a call with wall limit `timeoutMs` (soft; hard is one more). */
export function cpuSecondsFor(timeoutMs: number): number {
  return Math.ceil(timeoutMs / 1000) + 1;
}

const MIB = 1024 * 1024;

/**
 * Whether a call's output is a flood: stdout and stderr together (bytes) reached `maxFileBytes`. The one
 * rule of both runners (the Docker runner counts both streams against `killAfterOutputBytes` too).
 */
export function outputFlooded(stdoutBytes: number, stderrBytes: number, maxFileBytes: number): boolean {
  return stdoutBytes + stderrBytes >= maxFileBytes;
}

/** Decodes one captured stream of a reply. */
export function replyText(part: [string, string, number]): CappedText {
  return renderCapped({ head: Buffer.from(part[0], 'base64'), tail: Buffer.from(part[1], 'base64'), totalBytes: part[2] });
}

/** The {@link ExecResult} of a call the server ran (`setupOk`). */
export function replyResult(reply: ZygoteReply, maxFileBytes: number): ExecResult {
  return classifyOutcome({
    timedOut: reply.timedOut,
    outputLimited: reply.outputKilled || outputFlooded(reply.stdout[2], reply.stderr[2], maxFileBytes),
    exitCode: reply.exitCode,
    signal: signalName(reply.signal),
    stdout: replyText(reply.stdout),
    stderr: replyText(reply.stderr),
    wallMs: reply.wallMs,
    cpuMs: reply.cpuMs,
  });
}

/** The error an aborted call rejects with: the signal's reason, or an `AbortError`. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Pool of zygote servers, one per worker slot (each with a full and a light zygote). Each worker
 * takes one request at a time ({@link ZygoteServer.exclusive}); a call goes to an idle worker (the
 * caller bounds concurrency to `workers`, so one exists unless session calls wait on theirs), a
 * session's calls to the worker its process lives on. Each call: send the request, wait for the
 * reply with a Node-side backstop (`timeoutMs + 2 s`) that kills the worker's whole sandbox; a
 * worker is replaced after any anomaly, and after `recycleAfter` calls once no session lives on it.
 * With memory cgroups, each worker is a leaf limited to its footprint when ready plus `memoryMb`.
 */
export class ForkServerPool {
  readonly opts: ResolvedLocalOptions;
  readonly cfg: ZygoteConfig;
  /** The sandbox's memory cgroups (undefined: RLIMIT_AS only). */
  readonly cgroups: MemoryCgroups | undefined;
  readonly #warn: (w: LocalSandboxWarning) => void;
  readonly #slots: ZygoteServer[] = [];
  readonly #all = new Set<ZygoteServer>();
  readonly #leaves = new Map<ZygoteServer, string>();
  /** Each worker's memory footprint once ready (bytes charged to its leaf with no call running). */
  readonly #footprints = new Map<ZygoteServer, number>();
  #started = 0;
  #closed = false;

  constructor(opts: ResolvedLocalOptions, cfg: ZygoteConfig, warn: (w: LocalSandboxWarning) => void, cgroups?: MemoryCgroups) {
    this.opts = opts;
    this.cfg = cfg;
    this.#warn = warn;
    this.cgroups = cgroups;
    for (let i = 0; i < opts.workers; i++) this.#slots.push(this.#start());
  }

  get closed(): boolean {
    return this.#closed;
  }

  #start(): ZygoteServer {
    const cg = this.cgroups;
    let leaf: string | undefined;
    if (cg) {
      try {
        leaf = cg.leaf(`w${this.#started++}`, 0);
      } catch (e) {
        this.#warn({ code: 'MEMORY_NOT_BOUNDED', message: `worker memory cgroup not created: ${(e as Error).message}` });
      }
    }
    const z = new ZygoteServer({ ...this.cfg, ...(leaf === undefined ? {} : { cgroupProcs: join(leaf, 'cgroup.procs') }) });
    this.#all.add(z);
    if (leaf !== undefined) this.#leaves.set(z, leaf);
    if (z.cgroupError !== undefined) this.#warn({ code: 'MEMORY_NOT_BOUNDED', message: `worker not put in its memory cgroup: ${z.cgroupError}` });
    void z.exited().then(() => {
      this.#all.delete(z);
      if (leaf !== undefined) {
        this.#leaves.delete(z);
        cg!.removeLeaf(leaf);
      }
    });
    z.ready.then(
      ({ preloadFailed }) => {
        if (preloadFailed.length) this.#warn({ code: 'PRELOAD_FAILED', message: `preload failed: ${preloadFailed.join('; ')}` });
        // The worker's own footprint (server, zygotes, page cache they read) plus one call's memoryMb.
        if (leaf !== undefined && this.opts.memoryMb > 0) {
          try {
            const footprint = cg!.usage(leaf);
            this.#footprints.set(z, footprint);
            cg!.setLimit(leaf, footprint + this.opts.memoryMb * MIB);
          } catch (e) {
            this.#warn({ code: 'MEMORY_NOT_BOUNDED', message: `worker memory limit not set: ${(e as Error).message}` });
          }
        }
      },
      () => {},
    );
    return z;
  }

  /** The cgroup leaf of worker `z`, if any. */
  /**
   * Waits (up to `maxMs`) until worker `z`'s leaf is back near its footprint: the kernel frees a killed call's memory
   * (memfds, tmpfs, shared memory) asynchronously, and a process started in the leaf before that can be OOM-killed
   * for memory that was not its own.
   */
  async settled(z: ZygoteServer, maxMs = 2000): Promise<void> {
    const leaf = this.#leaves.get(z);
    const footprint = this.#footprints.get(z);
    if (!this.cgroups || leaf === undefined || footprint === undefined) return;
    const slack = 16 * MIB;
    for (const end = Date.now() + maxMs; Date.now() < end; ) {
      let usage: number;
      try {
        usage = this.cgroups.usage(leaf);
      } catch {
        return;
      }
      if (usage <= footprint + slack) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  leafOf(z: ZygoteServer): string | undefined {
    return this.#leaves.get(z);
  }

  /** True while `z` still serves its slot (not killed or replaced). */
  isCurrent(z: ZygoteServer): boolean {
    return !z.dead && this.#slots.includes(z);
  }

  /**
   * A worker for a new call (`forSession` false) or session: an idle one if any (fewest sessions
   * first), else the one with the shortest queue. Dead workers are replaced first.
   */
  pick(): ZygoteServer {
    for (let i = 0; i < this.#slots.length; i++) if (this.#slots[i]!.dead && !this.#closed) this.#slots[i] = this.#start();
    let best = this.#slots[0]!;
    for (const z of this.#slots) {
      if (z.queued < best.queued || (z.queued === best.queued && z.sessions < best.sessions)) best = z;
    }
    return best;
  }

  /** Waits (bounded) for worker `z` to be ready; a `sandbox_error` result when it failed to start. */
  async ready(z: ZygoteServer): Promise<ExecResult | undefined> {
    // Ref'd timer: keeps Node alive while the (unref'd) zygote starts, and bounds the start.
    const startGuard = setTimeout(() => z.kill(`zygote not ready after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    try {
      await z.ready;
      return undefined;
    } catch (e) {
      this.retire(z, 'start failure');
      return sandboxErrorResult(`sandbox zygote failed to start: ${(e as Error).message}`);
    } finally {
      clearTimeout(startGuard);
    }
  }

  /** After a request on `z`: replaces it after an anomaly, or when due for recycling and no session lives on it. */
  retire(z: ZygoteServer, anomaly: string | undefined): void {
    const recycle = anomaly !== undefined || z.dead || (z.calls >= this.opts.recycleAfter && z.sessions === 0);
    if (!recycle || this.#closed) return;
    z.kill(anomaly ?? 'recycled');
    if (anomaly !== undefined) this.#warn({ code: 'ZYGOTE_RECYCLED', message: `zygote replaced after: ${anomaly}` });
    const i = this.#slots.indexOf(z);
    if (i >= 0) this.#slots[i] = this.#start();
  }

  /** Runs one call on a free worker. Resolves with a result; rejects only on abort. */
  run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    const z = this.pick();
    return z.exclusive(() => this.#call(z, req, signal));
  }

  async #call(z: ZygoteServer, req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
    const o = this.opts;
    const timeoutMs = req.timeoutMs ?? o.timeoutMs;
    let anomaly: string | undefined;
    let workdir: string | undefined;
    try {
      const failed = await this.ready(z);
      if (failed) return failed;
      if (signal?.aborted) throw abortError(signal);
      if (this.cfg.bwrap === undefined) workdir = await mkdtemp(join(tmpdir(), 'agentrl-call-'));
      const started = performance.now();
      let backstop: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      let aborted = false;
      let unwatch = (): void => undefined;
      const reply = await new Promise<Awaited<ReturnType<ZygoteServer['run']>> | 'backstop' | Error>((resolve, reject) => {
        backstop = setTimeout(() => resolve('backstop'), timeoutMs + BACKSTOP_GRACE_MS);
        if (signal) {
          // The caller aborted: ask the server to end the call and wait (briefly) for its answer, so the
          // worker is kept; only a server that does not answer in time is killed and rebuilt.
          onAbort = () => {
            if (aborted) return;
            aborted = true;
            z.cancel();
            clearTimeout(backstop);
            backstop = setTimeout(() => reject(abortError(signal)), BACKSTOP_GRACE_MS);
          };
          unwatch = watchAbort(signal, onAbort);
        }
        z.run({
          code: req.code,
          timeoutMs,
          cpuS: cpuSecondsFor(timeoutMs),
          capBytes: o.maxOutputBytes,
          ...(req.stdin === undefined ? {} : { stdin: req.stdin }),
          ...(workdir === undefined ? {} : { workdir }),
        }).then(resolve, (e: Error) => resolve(e));
        if (signal?.aborted) onAbort?.();
      })
        .finally(() => {
          clearTimeout(backstop);
          unwatch();
        })
        .catch((e: unknown) => {
          anomaly = 'abort';
          throw e;
        });
      const wallMs = performance.now() - started;
      if (aborted) {
        if (reply === 'backstop' || reply instanceof Error || reply.fatal !== undefined) anomaly = 'abort';
        throw abortError(signal!);
      }
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
      // A deadline shorter than the call's set-up kills the call before it reports ready: a timeout, not a broken worker.
      if (!reply.setupOk && reply.timedOut) return { ...sandboxErrorResult(''), status: 'timeout', wallMs: reply.wallMs };
      if (!reply.setupOk) {
        anomaly = 'call setup failed';
        return sandboxErrorResult(`sandbox setup failed: ${replyText(reply.stderr).text}`, reply.wallMs);
      }
      return replyResult(reply, o.maxFileBytes);
    } finally {
      this.retire(z, anomaly);
      if (workdir) void rm(workdir, { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Kills every zygote (and with it every call sandbox) and waits for them to exit. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#all];
    for (const z of all) z.kill('sandbox closed');
    await Promise.all(all.map((z) => z.exited()));
  }
}
