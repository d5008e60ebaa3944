/**
 * Worker pool for math-equivalence checks with a hard per-check timeout.
 *
 * compute-engine work is synchronous and cannot be interrupted, so each check runs in a
 * `node:worker_threads` worker; when a check exceeds its deadline the worker is terminated (the
 * check resolves `status: 'timeout'`) and a fresh worker is started for the next one.
 *
 * Loading: workers are created from a small bootstrap script (`eval: true`) that `import()`s the
 * module exporting `mathEquivalentSync`. From sources (`*.ts`, under vitest or tsx) that is
 * `./equivalent.ts`, with tsx's ESM loader registered inside the worker; from the tsup build the
 * first existing of `./reward-math-worker.js` (a dedicated tsup entry for `equivalent.ts`, lightest),
 * `./equivalent.js`, or the bundle entry `./index.js` next to the running chunk (which must then
 * export `mathEquivalentSync`).
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MathWorkerError } from '../../errors/math-errors.js';
import type { EquivalenceResult, MathEquivalenceOptions } from './equivalent.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const MATH_CHECK_POOL_OPTIONS = optionKeys<MathCheckPoolOptions>({ size: true, timeoutMs: true, startupTimeoutMs: true });
const MATH_EQUIVALENT_OPTIONS = optionKeys<MathCheckOptions & { readonly pool?: MathCheckPool }>({
  timeoutMs: true,
  floatRounding: true,
  minSignificantDigits: true,
  relTol: true,
  samplePoints: true,
  maxAnswerChars: true,
  pool: true,
});

/** Options of {@link MathCheckPool}. */
export interface MathCheckPoolOptions {
  /** Number of worker threads. @default min(2, availableParallelism()) */
  readonly size?: number;
  /** Default per-check deadline in ms, counted from when a worker picks the check up. @default 5000 */
  readonly timeoutMs?: number;
  /** Deadline in ms for a worker to load compute-engine. @default 60000 */
  readonly startupTimeoutMs?: number;
}

/** Per-check options: the numeric policy plus an optional deadline override. */
export interface MathCheckOptions extends MathEquivalenceOptions {
  /** Deadline in ms for this check. @default the pool's `timeoutMs` */
  readonly timeoutMs?: number;
}

interface Task {
  readonly id: number;
  readonly gold: string;
  readonly pred: string;
  readonly options: MathEquivalenceOptions;
  readonly timeoutMs: number;
  readonly resolve: (r: EquivalenceResult) => void;
  readonly reject: (e: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  task: Task | undefined;
  timer: NodeJS.Timeout | undefined;
}

const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let mod; let lastError;
  for (const url of workerData.modules) {
    try {
      if (url.endsWith('.ts') && workerData.tsxApi && !globalThis.__agentrlTsx) {
        const api = await import(workerData.tsxApi);
        api.register();
        globalThis.__agentrlTsx = true;
      }
      mod = await import(url);
      if (mod && typeof mod.mathEquivalentSync === 'function') break;
      mod = undefined;
    } catch (e) { lastError = e; }
  }
  if (!mod) {
    parentPort.postMessage({ type: 'fatal', message: 'cannot load mathEquivalentSync from ' + workerData.modules.join(', ') + ': ' + (lastError && lastError.message) });
    return;
  }
  parentPort.on('message', (m) => {
    let result;
    try { result = mod.mathEquivalentSync(m.gold, m.pred, m.options); }
    catch (e) { result = { equal: false, status: 'error', detail: String(e && e.message || e) }; }
    parentPort.postMessage({ type: 'result', id: m.id, result });
  });
  parentPort.postMessage({ type: 'ready' });
})();
`;

function exists(url: string): boolean {
  try {
    return existsSync(fileURLToPath(url));
  } catch {
    return false;
  }
}

/** Module URLs a worker tries, and tsx's API path when running from sources. */
function workerTargets(): { modules: string[]; tsxApi: string | undefined } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    let tsxApi: string | undefined;
    try {
      tsxApi = pathToFileURL(
        createRequire(here)
          .resolve('tsx/esm/api')
          .replace(/\.cjs$/, '.mjs'),
      ).href;
    } catch {
      tsxApi = undefined;
    }
    return { modules: [new URL('./equivalent.ts', here).href], tsxApi };
  }
  const candidates = ['./reward-math-worker.js', './equivalent.js', './index.js'];
  return { modules: candidates.map((c) => new URL(c, here).href).filter(exists), tsxApi: undefined };
}

/**
 * A pool of equivalence workers. Idle workers are `unref`'d, so an idle pool never keeps the
 * process alive; call {@link MathCheckPool.close} to free the threads early.
 */
export class MathCheckPool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #startupTimeoutMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  #nextId = 1;
  #closed = false;
  #fatal: MathWorkerError | undefined;

  /** Creates an empty pool; workers start on the first check. A `size` below 1 is clamped to 1. */
  constructor(options: MathCheckPoolOptions = {}) {
    checkOptions('MathCheckPool options', MATH_CHECK_POOL_OPTIONS, options, { optional: true });
    this.#size = Math.max(1, Math.floor(options.size ?? Math.min(2, availableParallelism())));
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#startupTimeoutMs = options.startupTimeoutMs ?? 60_000;
  }

  /** Number of live worker threads (for tests and metrics). */
  get workerCount(): number {
    return this.#slots.length;
  }

  /**
   * Checks `gold` ≡ `pred` in a worker. Resolves `status: 'timeout'` when the check exceeds its
   * deadline (the worker is terminated and replaced) and `status: 'error'` if the worker crashes.
   * @throws MathWorkerError when the pool is closed or workers cannot load their module.
   */
  check(gold: string, pred: string, options: MathCheckOptions = {}): Promise<EquivalenceResult> {
    if (this.#closed) return Promise.reject(new MathWorkerError('math pool is closed'));
    if (this.#fatal !== undefined) return Promise.reject(this.#fatal);
    const { timeoutMs, ...policy } = options;
    return new Promise<EquivalenceResult>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, gold, pred, options: policy, timeoutMs: timeoutMs ?? this.#timeoutMs, resolve, reject });
      this.#pump();
    });
  }

  /** Terminates every worker; queued checks reject with `MathWorkerError`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const err = new MathWorkerError('math pool closed');
    for (const t of this.#queue.splice(0)) t.reject(err);
    const slots = this.#slots.splice(0);
    await Promise.all(
      slots.map(async (s) => {
        if (s.timer !== undefined) clearTimeout(s.timer);
        s.task?.reject(err);
        await s.worker.terminate();
      }),
    );
  }

  #pump(): void {
    if (this.#closed) return;
    for (const slot of this.#slots) {
      if (!slot.ready || slot.task !== undefined) continue;
      const task = this.#queue.shift();
      if (task === undefined) break;
      this.#dispatch(slot, task);
    }
    const booting = this.#slots.filter((s) => !s.ready).length;
    if (this.#queue.length > booting && this.#slots.length < this.#size) this.#spawn();
  }

  #dispatch(slot: Slot, task: Task): void {
    slot.task = task;
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      slot.task = undefined;
      task.resolve({ equal: false, status: 'timeout', detail: `check exceeded ${task.timeoutMs} ms` });
      this.#drop(slot);
      void slot.worker.terminate();
      this.#replace();
    }, task.timeoutMs);
    slot.worker.postMessage({ id: task.id, gold: task.gold, pred: task.pred, options: task.options });
  }

  /** Starts a replacement at once after a kill, so the next check does not wait for a cold worker. */
  #replace(): void {
    if (!this.#closed && this.#fatal === undefined && this.#slots.length < this.#size) this.#spawn();
    this.#pump();
  }

  #drop(slot: Slot): void {
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
  }

  #failAll(err: MathWorkerError): void {
    this.#fatal = err;
    for (const t of this.#queue.splice(0)) t.reject(err);
  }

  #spawn(): void {
    const { modules, tsxApi } = workerTargets();
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { modules, tsxApi } });
    const slot: Slot = { worker, ready: false, task: undefined, timer: undefined };
    this.#slots.push(slot);
    slot.timer = setTimeout(() => {
      this.#drop(slot);
      void worker.terminate();
      this.#failAll(new MathWorkerError(`math worker did not start within ${this.#startupTimeoutMs} ms`));
    }, this.#startupTimeoutMs);
    worker.on('message', (msg: { type: string; id?: number; result?: EquivalenceResult; message?: string }) => {
      if (msg.type === 'ready') {
        if (slot.timer !== undefined) clearTimeout(slot.timer);
        slot.timer = undefined;
        slot.ready = true;
        worker.unref();
        this.#pump();
      } else if (msg.type === 'fatal') {
        this.#drop(slot);
        void worker.terminate();
        this.#failAll(new MathWorkerError(msg.message ?? 'math worker failed to load'));
      } else if (msg.type === 'result') {
        const task = slot.task;
        if (task === undefined || task.id !== msg.id) return;
        if (slot.timer !== undefined) clearTimeout(slot.timer);
        slot.timer = undefined;
        slot.task = undefined;
        worker.unref();
        task.resolve(msg.result ?? { equal: false, status: 'error', detail: 'empty worker reply' });
        this.#pump();
      }
    });
    const onDeath = (why: string): void => {
      if (!this.#slots.includes(slot)) return;
      const task = slot.task;
      slot.task = undefined;
      this.#drop(slot);
      task?.resolve({ equal: false, status: 'error', detail: why });
      this.#replace();
    };
    worker.on('error', (e) => onDeath(`math worker crashed: ${e.message}`));
    worker.on('exit', (code) => onDeath(`math worker exited with code ${code}`));
  }
}

let shared: MathCheckPool | undefined;

/** The lazily created module-level pool used by {@link mathEquivalent}. */
export function defaultMathPool(): MathCheckPool {
  shared ??= new MathCheckPool();
  return shared;
}

/** Closes the module-level pool (a later `mathEquivalent` call starts a new one). */
export async function closeDefaultMathPool(): Promise<void> {
  const p = shared;
  shared = undefined;
  await p?.close();
}

/**
 * Async math equivalence with a hard timeout: runs `mathEquivalentSync` in the shared worker pool
 * (or `options.pool`). A check that exceeds `timeoutMs` (default 5000) resolves
 * `{ equal: false, status: 'timeout' }`; it never stalls the caller.
 * @throws MathWorkerError when workers cannot be started.
 */
export function mathEquivalent(gold: string, pred: string, options: MathCheckOptions & { readonly pool?: MathCheckPool } = {}): Promise<EquivalenceResult> {
  checkOptions('mathEquivalent options', MATH_EQUIVALENT_OPTIONS, options, { optional: true });
  const { pool, ...rest } = options;
  return (pool ?? defaultMathPool()).check(gold, pred, rest);
}
