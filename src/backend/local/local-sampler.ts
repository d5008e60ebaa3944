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

  constructor(engine: LocalEngine, kernels: DecodeKernels, params: Params, opts: { maxRows: number; seed: number }) {
    this.#engine = engine;
    this.#params = params;
    this.#scheduler = new DecodeScheduler(kernels, params, opts);
    release.register(this.#scheduler, params);
  }

  /** Context length of the model in tokens. */
  get maxContextTokens(): number {
    return this.#engine.cfg.contextTokens;
  }

  async sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const cfg = this.#engine.cfg;
    if (promptTokens.length === 0) throw new BackendInputError('promptTokens', 'empty prompt');
    checkTokens('promptTokens', promptTokens, cfg.vocabSize);
    if (promptTokens.length >= cfg.contextTokens) {
      throw new BackendInputError('promptTokens', `length ${promptTokens.length} leaves no room in the context of ${cfg.contextTokens} tokens`);
    }
    const n = params.numSamples ?? 1;
    if (!Number.isInteger(n) || n < 0) throw new BackendInputError('numSamples', `must be an integer ≥ 0, got ${n}`);
    if (!Number.isInteger(params.maxTokens) || params.maxTokens < 0) throw new BackendInputError('maxTokens', `must be an integer ≥ 0, got ${params.maxTokens}`);
    const T = params.temperature ?? 1;
    if (!(T >= 0) || !Number.isFinite(T)) throw new BackendInputError('temperature', `must be ≥ 0, got ${T}`);
    const topP = params.topP ?? 1;
    if (!(topP > 0 && topP <= 1)) throw new BackendInputError('topP', `must be in (0, 1], got ${topP}`);
    if (params.stop) checkTokens('stop', params.stop, cfg.vocabSize);
    const k = params.topLogprobs ?? 0;
    if (!Number.isInteger(k) || k < 0 || k > MAX_TOP_LOGPROBS) throw new BackendInputError('topLogprobs', `must be an integer in [0, ${MAX_TOP_LOGPROBS}], got ${k}`);
    return this.#scheduler.submit([...promptTokens], params);
  }

  async computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    return this.#engine.computeLogprobs(tokens, this.#params);
  }
}
