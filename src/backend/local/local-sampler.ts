import { MAX_TOP_LOGPROBS, type SampledSequence, type SamplingParams } from '../../types/sampling.js';
import { BackendInputError } from '../../errors/index.js';
import type { SamplingClient } from '../types.js';
import { checkTokens } from './batching.js';
import type { DecodeKernels } from './decode-kernels.js';
import { DecodeScheduler } from './decode-scheduler.js';
import type { LocalEngine } from './engine.js';
import { tree } from './jax.js';
import type { Params } from './params.js';

// Frozen weights are released when the scheduler is garbage-collected: it is reachable from the sampler
// AND from its own running decode loop, so an in-flight sample() keeps them alive even if the caller
// dropped the sampler object.
const release = new FinalizationRegistry<Params>((p) => tree.dispose(p));

/**
 * A `SamplingClient` over a frozen copy of the weights (later optimizer steps do not affect it).
 * Concurrent `sample` calls are batched together by a {@link DecodeScheduler}.
 */
export class LocalSampler implements SamplingClient {
  readonly #engine: LocalEngine;
  readonly #params: Params;
  readonly #scheduler: DecodeScheduler;
  /** Calls in progress (they keep the weights alive past {@link LocalSampler.release}). */
  #inFlight = 0;
  #released = false;
  #freed = false;

  constructor(engine: LocalEngine, kernels: DecodeKernels, params: Params, opts: { maxRows: number; seed: number }) {
    this.#engine = engine;
    this.#params = params;
    this.#scheduler = new DecodeScheduler(kernels, params, opts);
    release.register(this.#scheduler, params, this);
  }

  /** Calls (`sample`, `computeLogprobs`) in progress. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Whether {@link LocalSampler.release} was called. */
  get released(): boolean {
    return this.#released;
  }

  /**
   * Frees the frozen weights now, or when the calls in progress have finished; later calls reject with
   * `BackendInputError`. Idempotent.
   */
  release(): void {
    this.#released = true;
    this.#freeIfIdle();
  }

  #freeIfIdle(): void {
    if (!this.#released || this.#freed || this.#inFlight > 0) return;
    this.#freed = true;
    release.unregister(this);
    tree.dispose(this.#params);
  }

  async #use<T>(work: () => Promise<T>): Promise<T> {
    if (this.#released) throw new BackendInputError('sampler', 'this sampler was released (its weights version was freed)');
    this.#inFlight += 1;
    try {
      return await work();
    } finally {
      this.#inFlight -= 1;
      this.#freeIfIdle();
    }
  }

  /** Context length of the model in tokens. */
  get maxContextTokens(): number {
    return this.#engine.cfg.contextTokens;
  }

  sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    return this.#use(() => this.#sample(promptTokens, params));
  }

  async #sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const cfg = this.#engine.cfg;
    if (promptTokens.length === 0) throw new BackendInputError('promptTokens', 'empty prompt');
    checkTokens('promptTokens', promptTokens, cfg.vocabSize);
    if (promptTokens.length >= cfg.contextTokens) {
      throw new BackendInputError('promptTokens', `length ${promptTokens.length} leaves no room in the context of ${cfg.contextTokens} tokens`);
    }
    const n = params.numSamples ?? 1;
    if (!Number.isInteger(n) || n < 0) throw new BackendInputError('numSamples', `must be an integer ≥ 0, got ${n}`);
    if (!Number.isInteger(params.maxTokens) || params.maxTokens < 0)
      throw new BackendInputError('maxTokens', `must be an integer ≥ 0, got ${params.maxTokens}`);
    const T = params.temperature ?? 1;
    if (!(T >= 0) || !Number.isFinite(T)) throw new BackendInputError('temperature', `must be ≥ 0, got ${T}`);
    const topP = params.topP ?? 1;
    if (!(topP > 0 && topP <= 1)) throw new BackendInputError('topP', `must be in (0, 1], got ${topP}`);
    if (params.stop) checkTokens('stop', params.stop, cfg.vocabSize);
    const k = params.topLogprobs ?? 0;
    if (!Number.isInteger(k) || k < 0 || k > MAX_TOP_LOGPROBS)
      throw new BackendInputError('topLogprobs', `must be an integer in [0, ${MAX_TOP_LOGPROBS}], got ${k}`);
    return this.#scheduler.submit([...promptTokens], params);
  }

  computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    return this.#use(async () => this.#engine.computeLogprobs(tokens, this.#params));
  }
}
