import { SandboxClosedError } from '../../src/errors/sandbox-errors.js';
import { ConfigError } from '../../src/errors/config-error.js';
import type { ExecResult, RunRequest, Sandbox } from '../../src/types/exec-result.js';
import type { WorkerLike, WorkerReply } from './protocol.js';
import { SandboxUnavailableError } from '../../src/errors/sandbox-errors.js';

/** The page's `Worker` constructor (typed here: the package compiles without the DOM library). */
const WorkerCtor = (globalThis as unknown as { Worker?: new (url: string | URL, o: { type: 'module' }) => WorkerLike }).Worker;

/** Options of {@link pyodideSandbox}. */
export interface PyodideSandboxOptions {
  /** URL of the built `adapters/pyodide/worker.ts` (a module worker script served with the page). */
  readonly workerUrl: string | URL;
  /** URL of the folder serving the `pyodide` npm package's files (`pyodide.mjs`, `pyodide.asm.wasm`, `python_stdlib.zip`, …), ending in `/`; same origin as the page, no CDN. */
  readonly indexURL: string | URL;
  /** Workers running programs at once, each with its own interpreter. @default 1 */
  readonly workers?: number;
  /** Default per-call wall-clock limit, ms (the worker is terminated and replaced at it). @default 10_000 */
  readonly timeoutMs?: number;
  /** Bytes kept per output stream: its first and last halves, the middle cut with a marker (`truncated`). @default 65_536 */
  readonly maxOutputBytes?: number;
  /** Bytes one stream may write in a call before the call ends as `output_limit` (the worker is replaced). @default max(4 MiB, 16 × maxOutputBytes) */
  readonly killAfterOutputBytes?: number;
  /** A worker is replaced after this many calls, bounding what a program can leave in a module loaded at start-up. @default 50 */
  readonly recycleAfterCalls?: number;
  /** Time allowed for one worker to load Pyodide, ms; past it the call is a `sandbox_error`. @default 60_000 */
  readonly startTimeoutMs?: number;
}

interface Slot {
  worker: WorkerLike;
  ready: Promise<void>;
  calls: number;
}

/**
 * A {@link Sandbox} that runs Python in the page: CPython compiled to WebAssembly (Pyodide), one interpreter per Web
 * Worker. A call past its time limit, or past the output cap, terminates its worker and starts a fresh one (the result
 * is `timeout` / `output_limit`); model code has no network (the worker's `fetch`, `XMLHttpRequest`, `WebSocket` and
 * friends are removed after Pyodide loads) and sees no file of the page. Between calls the interpreter is reset
 * (fresh globals; `sys.modules` and every loaded module's namespace as after start-up; the previous call's files,
 * `os.environ` and working directory undone) and every `recycleAfterCalls` calls replaced. Passes the shared
 * conformance suite in headless Chromium except the cases that need processes or a memory limit
 * (test/adapters/pyodide/pyodide.conformance.test.ts says why for each).
 *
 * Differs from the local adapter: no `memory` status (a worker that runs out of wasm memory gives `error` with
 * `MemoryError`), no processes (`os.fork`, subprocesses fail), no sessions; numpy is not loaded (standard library only); state kept
 * outside module namespaces (e.g. the `random` generator's internal state) is not reset between calls.
 * @throws ConfigError for invalid options.
 */
export function pyodideSandbox(options: PyodideSandboxOptions): Sandbox {
  const workers = options.workers ?? 1;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxOutputBytes = options.maxOutputBytes ?? 65_536;
  const recycleAfterCalls = options.recycleAfterCalls ?? 50;
  const killAfterOutputBytes = options.killAfterOutputBytes ?? Math.max(4 * 2 ** 20, 16 * maxOutputBytes);
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const issues = [
    ...(Number.isInteger(workers) && workers >= 1 ? [] : [{ path: 'workers', message: `expected an integer ≥ 1, got ${workers}` }]),
    ...(Number.isFinite(timeoutMs) && timeoutMs > 0 ? [] : [{ path: 'timeoutMs', message: `expected a number > 0, got ${timeoutMs}` }]),
    ...(Number.isInteger(maxOutputBytes) && maxOutputBytes >= 1 ? [] : [{ path: 'maxOutputBytes', message: `expected an integer ≥ 1, got ${maxOutputBytes}` }]),
    ...(Number.isInteger(killAfterOutputBytes) && killAfterOutputBytes >= maxOutputBytes
      ? []
      : [{ path: 'killAfterOutputBytes', message: `expected an integer ≥ maxOutputBytes, got ${killAfterOutputBytes}` }]),
    ...(Number.isInteger(recycleAfterCalls) && recycleAfterCalls >= 1
      ? []
      : [{ path: 'recycleAfterCalls', message: `expected an integer ≥ 1, got ${recycleAfterCalls}` }]),
  ];
  if (issues.length > 0) throw new ConfigError('pyodideSandbox options', issues);
  const indexURL = String(options.indexURL).endsWith('/') ? String(options.indexURL) : `${String(options.indexURL)}/`;

  if (WorkerCtor === undefined)
    throw new ConfigError('pyodideSandbox options', [
      { path: 'workerUrl', message: 'this platform has no Web Worker (pyodideSandbox runs in a browser page)' },
    ]);
  const start = (): Slot => {
    const worker = new WorkerCtor(options.workerUrl, { type: 'module' });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SandboxUnavailableError(`Pyodide did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
      worker.addEventListener('message', function onReady(e: { data: WorkerReply }) {
        if (e.data.kind !== 'ready' && e.data.kind !== 'init-failed') return;
        clearTimeout(timer);
        worker.removeEventListener('message', onReady);
        if (e.data.kind === 'ready') resolve();
        else reject(new SandboxUnavailableError(`Pyodide failed to start: ${e.data.message}`));
      });
      worker.addEventListener('error', (e: { message?: string }) => reject(new SandboxUnavailableError(`Pyodide worker failed: ${e.message ?? 'error'}`)), {
        once: true,
      });
    });
    ready.catch(() => undefined);
    worker.postMessage({ kind: 'init', indexURL, maxOutputBytes, killAfterOutputBytes });
    return { worker, ready, calls: 0 };
  };

  const idle: Slot[] = Array.from({ length: workers }, start);
  const waiting: ((s: Slot) => void)[] = [];
  let closed = false;
  let nextId = 1;

  const acquire = () =>
    new Promise<Slot>((resolve) => {
      const s = idle.pop();
      if (s) resolve(s);
      else waiting.push(resolve);
    });
  const release = (s: Slot, replace: boolean) => {
    let slot = s;
    if (replace || s.calls >= recycleAfterCalls) {
      s.worker.terminate();
      slot = start();
    }
    if (closed) return slot.worker.terminate();
    const next = waiting.shift();
    if (next) next(slot);
    else idle.push(slot);
  };

  return {
    name: 'pyodide',
    async run(req: RunRequest, signal?: AbortSignal): Promise<ExecResult> {
      if (closed) throw new SandboxClosedError();
      signal?.throwIfAborted();
      const slot = await acquire();
      if (closed) {
        slot.worker.terminate();
        throw new SandboxClosedError();
      }
      try {
        await slot.ready;
      } catch (e) {
        release(slot, true);
        return { status: 'sandbox_error', exitCode: null, stdout: '', stderr: String(e), truncated: false, wallMs: 0 };
      }
      slot.calls++;
      const id = nextId++;
      const limitMs = req.timeoutMs ?? timeoutMs;
      const t0 = performance.now();
      return new Promise<ExecResult>((resolve, reject) => {
        let settled = false;
        const finish = (r: ExecResult | Error, replace: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          slot.worker.removeEventListener('message', onMessage);
          signal?.removeEventListener('abort', onAbort);
          release(slot, replace);
          if (r instanceof Error) reject(r);
          else resolve(r);
        };
        const wallMs = () => Math.round(performance.now() - t0);
        const onMessage = (e: { data: WorkerReply }) => {
          const m = e.data;
          if (m.kind === 'result' && m.id === id) {
            finish(
              { status: m.exitCode === 0 ? 'ok' : 'error', exitCode: m.exitCode, stdout: m.stdout, stderr: m.stderr, truncated: m.truncated, wallMs: wallMs() },
              false,
            );
          } else if (m.kind === 'output-limit' && m.id === id) {
            finish({ status: 'output_limit', exitCode: null, stdout: m.stdout, stderr: m.stderr, truncated: true, wallMs: wallMs() }, true);
          }
        };
        const onAbort = () => finish(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'), true);
        const timer = setTimeout(
          () => finish({ status: 'timeout', exitCode: null, stdout: '', stderr: `timed out after ${limitMs} ms`, truncated: false, wallMs: wallMs() }, true),
          limitMs,
        );
        slot.worker.addEventListener('message', onMessage);
        signal?.addEventListener('abort', onAbort, { once: true });
        slot.worker.postMessage({ kind: 'run', id, code: req.code, stdin: req.stdin ?? '' });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const s of idle.splice(0)) s.worker.terminate();
    },
  };
}
