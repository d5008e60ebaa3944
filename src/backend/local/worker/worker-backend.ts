import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Datum } from '../../../types/datum.js';
import type { LossConfig } from '../../../types/loss-config.js';
import type { SampledSequence, SamplingParams } from '../../../types/sampling.js';
import { AgentRLError } from '../../../errors/base.js';
import { BackendInputError, CheckpointError } from '../../../errors/index.js';
import type { Renderer } from '../../../chat/types.js';
import type {
  AdamParams,
  ForwardBackwardOptions,
  ForwardBackwardResult,
  OptimStepResult,
  SamplingClient,
  SamplingSupport,
  TrainingBackend,
} from '../../types.js';
import { localBackend, type LocalBackendOptions } from '../local-backend.js';
import type { ModelConfig } from '../model-config.js';
import type { WireError } from './engine-host.js';

/** Code of a failure of the worker thread itself (its module missing, a failed start, an exit): `docs/errors.md`. */
const WORKER_FAILED = 'LOCAL_ENGINE_WORKER';

/**
 * An engine error of a code without its own class here, rebuilt from the worker (same `code`, same message); also the
 * worker thread's own failure (code `LOCAL_ENGINE_WORKER`).
 */
class EngineWorkerError extends AgentRLError {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = 'EngineWorkerError';
  }
}

/** An abort reason as it crosses to the worker (so the rejection there rebuilds to the same typed error here). */
function wireReason(r: unknown): WireError {
  const e = r as { message?: unknown; name?: unknown; field?: unknown } | undefined;
  return {
    message: typeof e?.message === 'string' ? e.message : 'the sampling call was aborted',
    name: typeof e?.name === 'string' ? e.name : 'AbortError',
    ...(AgentRLError.isInstance(r) ? { code: r.code } : {}),
    ...(typeof e?.field === 'string' ? { field: e.field } : {}),
  };
}

function rebuild(e: WireError): Error {
  if (e.code === 'BACKEND_INPUT' && e.field !== undefined) {
    const prefix = `${e.field}: `;
    return new BackendInputError(e.field, e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message);
  }
  if (e.code === 'CHECKPOINT') return new CheckpointError(e.message);
  if (e.code !== undefined) return new EngineWorkerError(e.code, e.message);
  return Object.assign(new Error(e.message), { name: e.name });
}

const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApi) { const api = await import(workerData.tsxApi); api.register(); }
  await import(workerData.module);
})().catch((e) => parentPort.postMessage({ fatal: String((e && e.stack) || e) }));
`;

/** The engine host module and, from sources, tsx's API (the worker registers it to load TypeScript). */
function hostTarget(): { module: string; tsxApi: string | undefined } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsxApi = pathToFileURL(
      createRequire(here)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs'),
    ).href;
    return { module: new URL('./engine-host.ts', here).href, tsxApi };
  }
  const built = ['./local-engine-worker.js', './engine-host.js'].map((c) => new URL(c, here).href).find((u) => existsSync(fileURLToPath(u)));
  if (!built) throw new EngineWorkerError(WORKER_FAILED, `local engine worker module not found next to ${here}`);
  return { module: built, tsxApi: undefined };
}

interface Pending {
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * `localBackend` in its own worker thread: the same engine, answers and errors, but its compute never blocks the
 * calling thread (an HTTP server stays responsive while a long `forwardBackward` runs). Options are validated here
 * first (`ConfigError` at once); the worker starts on first use. Samplers are handles into the worker; a sampling
 * call's `signal` aborts it there.
 * @throws ConfigError for invalid options (as `localBackend`).
 */
export function workerLocalBackend(options: LocalBackendOptions = {}): TrainingBackend {
  // Validates options and reads the checkpoint's shape now; its engine never starts in this thread.
  const probe = localBackend(options);
  return new WorkerBackend(probe, options);
}

class WorkerBackend implements TrainingBackend {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'local';
  readonly samplingSupport: SamplingSupport;
  /** The same engine as `localBackend`: the full-vocabulary entropy and the entropy bonus. */
  readonly learnerEntropy = true;
  readonly maxContextTokens: number;
  readonly #probe: TrainingBackend;
  readonly #options: LocalBackendOptions;
  #worker: Promise<Worker> | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;

  constructor(probe: TrainingBackend, options: LocalBackendOptions) {
    this.#probe = probe;
    this.#options = options;
    this.samplingSupport = probe.samplingSupport ?? { temperature: true, truncation: 'full-vocabulary' };
    this.maxContextTokens = probe.maxContextTokens;
  }

  #start(): Promise<Worker> {
    this.#worker ??= new Promise<Worker>((resolve, reject) => {
      const target = hostTarget();
      const w = new Worker(BOOTSTRAP, { eval: true, workerData: { ...target, options: this.#options } });
      w.unref();
      w.on('message', (m: { ready?: true; fatal?: string; id?: number; ok?: boolean; value?: unknown; error?: WireError }) => {
        if (m.ready) return resolve(w);
        if (m.fatal !== undefined) return reject(new EngineWorkerError(WORKER_FAILED, `local engine worker failed to start: ${m.fatal}`));
        const p = this.#pending.get(m.id!);
        if (!p) return;
        this.#pending.delete(m.id!);
        if (this.#pending.size === 0) w.unref();
        if (m.ok) p.resolve(m.value);
        else p.reject(rebuild(m.error!));
      });
      const fail = (e: unknown) => {
        reject(e);
        for (const p of this.#pending.values()) p.reject(e);
        this.#pending.clear();
      };
      w.on('error', fail);
      w.on('exit', (code) => fail(new EngineWorkerError(WORKER_FAILED, `local engine worker exited (${code})`)));
    });
    return this.#worker;
  }

  /** Sends `op` to the worker; `onId` gets the call id (for cancels). */
  async call<T>(op: string, args: readonly unknown[], onId?: (id: number, w: Worker) => void): Promise<T> {
    if (this.#closed && op !== 'close') throw new BackendInputError('backend', 'this local backend was closed');
    const w = await this.#start();
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.ref();
      w.postMessage({ id, op, args });
      onId?.(id, w);
    });
  }

  forwardBackward(datums: readonly Datum[], loss: LossConfig, opts?: ForwardBackwardOptions): Promise<ForwardBackwardResult> {
    return this.call('forwardBackward', [datums, loss, opts]);
  }

  optimStep(params: AdamParams): Promise<OptimStepResult> {
    return this.call('optimStep', [params]);
  }

  async saveWeightsForSampler(): Promise<SamplingClient> {
    const handle = await this.call<number>('saveWeightsForSampler', []);
    return new WorkerSampler(this, handle, this.maxContextTokens);
  }

  saveState(path: string): Promise<void> {
    return this.call('saveState', [path]);
  }

  loadState(path: string, opts?: { optimizer?: boolean }): Promise<void> {
    return this.call('loadState', [path, opts]);
  }

  computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    return this.call('computeLogprobs', [tokens]);
  }

  renderer(): Promise<Renderer> {
    return this.#probe.renderer();
  }

  /** The model shape (read from the options or the checkpoint; the engine in the worker has the same). */
  get config(): ModelConfig {
    return (this.#probe as unknown as { readonly config: ModelConfig }).config;
  }

  /** Frees the engine and every sampler, then ends the worker. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#probe.close();
    if (!this.#worker) return;
    const w = await this.#worker.catch(() => undefined);
    if (!w) return;
    await this.call('close', []).catch(() => undefined);
    await w.terminate();
  }
}

class WorkerSampler implements SamplingClient {
  readonly #b: WorkerBackend;
  readonly #h: number;
  readonly maxContextTokens: number;
  #released = false;

  constructor(b: WorkerBackend, handle: number, maxContextTokens: number) {
    this.#b = b;
    this.#h = handle;
    this.maxContextTokens = maxContextTokens;
  }

  sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const { signal, ...rest } = params;
    if (signal?.aborted) return Promise.reject(signal.reason);
    let cleanup = () => {};
    const p = this.#b.call<SampledSequence[]>('sample', [this.#h, promptTokens, rest], (id, w) => {
      if (!signal) return;
      // The worker stops the call at its next token boundary and rejects it with this reason (its typed form).
      const onAbort = () => w.postMessage({ op: 'cancel', target: id, reason: wireReason(signal.reason) });
      // It may have aborted while the worker was starting: the cancel then follows the call at once.
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      cleanup = () => signal.removeEventListener('abort', onAbort);
    });
    return p.finally(() => cleanup());
  }

  computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    return this.#b.call('samplerLogprobs', [this.#h, tokens]);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    void this.#b.call('release', [this.#h]).catch(() => undefined);
  }
}
