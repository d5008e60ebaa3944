import type { Datum } from '../../types/datum.js';
import type { LossConfig } from '../../types/loss-config.js';
import { BackendInputError } from '../../errors/index.js';
import { backendLossMetrics, lossDefinition, parseLossConfig, ratioBounds } from '../../loss/index.js';
import type { AdamParams, ForwardBackwardResult, OptimStepResult } from '../types.js';
import { aggregationCoefficients, checkTokens, planMicroBatches, seqBucket, validateDatums } from './batching.js';
import { tree } from './jax.js';
import type { ModelConfig } from './model-config.js';
import { accumulate, adamStep, type AdamState } from './optimizer.js';
import { toHost, zerosLike, type Params } from './params.js';
import type { TrainKernels, PackedBatch } from './train-step.js';
import { trainKernelsFor } from './kernel-cache.js';

/**
 * The training side of the local backend: weights, Adam state, gradient accumulator and the jitted
 * loss kernels. Synchronous (jax-js wasm runs on the calling thread).
 */
export class LocalEngine {
  readonly cfg: ModelConfig;
  readonly #kernels: TrainKernels;
  readonly #maxBatchTokens: number;
  #params: Params;
  #adam: AdamState;
  #grads: Params | undefined;

  constructor(cfg: ModelConfig, params: Params, opts: { maxBatchTokens: number; adam?: AdamState }) {
    this.cfg = cfg;
    this.#kernels = trainKernelsFor(cfg);
    this.#maxBatchTokens = opts.maxBatchTokens;
    this.#params = params;
    this.#adam = opts.adam ?? { m: zerosLike(cfg), v: zerosLike(cfg), step: 0 };
  }

  /** Number of optimizer steps taken. */
  get step(): number {
    return this.#adam.step;
  }

  /** New references to the current weights (caller disposes). */
  refParams(): Params {
    return tree.ref(this.#params);
  }

  /** Host copies of weights and Adam moments (for checkpoints). */
  snapshot(): { params: Map<string, Float32Array>; m: Map<string, Float32Array>; v: Map<string, Float32Array>; step: number } {
    return { params: toHost(this.#params), m: toHost(this.#adam.m), v: toHost(this.#adam.v), step: this.#adam.step };
  }

  /** Replaces weights (and optimizer state when given); drops accumulated gradients. Consumes the inputs. */
  replace(params: Params, adam?: AdamState): void {
    tree.dispose(this.#params);
    this.#params = params;
    if (adam) {
      tree.dispose(this.#adam.m);
      tree.dispose(this.#adam.v);
      this.#adam = adam;
    }
    tree.dispose(this.#grads);
    this.#grads = undefined;
  }

  /**
   * @param temperature - the sampling temperature the datums' logprobs were drawn at; the learner scores targets
   *   with `log softmax(logits / T)` (T = 0, greedy, is scored at T = 1 like the sampler reports it).
   */
  /**
   * Also reports `entropy`: the mean over masked tokens of the full-vocabulary entropy `−Σ_v p_v log p_v` (nats) of the
   * learner's tempered softmax. With `entropyCoef > 0` the loss gets verl's entropy bonus,
   * `loss − entropyCoef · Σ_t coef_t·H_t` (the same aggregation coefficients as the policy loss).
   */
  forwardBackward(datums: readonly Datum[], rawLoss: LossConfig, weight: number, temperature = 1, entropyCoef = 0): ForwardBackwardResult {
    const loss = parseLossConfig(rawLoss);
    const native = lossDefinition(loss).native;
    if (native === undefined)
      throw new BackendInputError('loss.kind', `'${loss.kind}' has no engine kernel; it runs through forwardBackwardCustom (localBackend does that)`);
    if (!Number.isFinite(weight)) throw new BackendInputError('weight', `must be a finite number, got ${weight}`);
    if (!(entropyCoef >= 0) || !Number.isFinite(entropyCoef)) throw new BackendInputError('entropyCoef', `must be a finite number ≥ 0, got ${entropyCoef}`);
    if (!(temperature >= 0) || !Number.isFinite(temperature))
      throw new BackendInputError('sampling.temperature', `must be a finite number ≥ 0, got ${temperature}`);
    const learnerT = temperature === 0 ? 1 : temperature;
    validateDatums(datums, this.cfg.vocabSize, this.cfg.contextTokens);
    const coefs = aggregationCoefficients(datums, loss);
    const [lo, hi] = ratioBounds(loss) ?? [0, 1e30];
    const plans = planMicroBatches(
      datums.map((d) => d.modelInput.length),
      this.cfg.contextTokens,
      this.#maxBatchTokens,
    );
    const logprobs: number[][] = new Array(datums.length);
    const entropy = new MaskedMean();
    let total = 0;
    for (const mb of plans) {
      const packed = pack(datums, coefs, mb.indices, mb.batch, mb.seqLen, weight, entropyCoef);
      const res = this.#kernels.lossAndGrad(native.lossFn, this.#params, packed, lo, hi, learnerT);
      this.#grads = accumulate(this.#grads, res.grads);
      total += res.loss;
      mb.indices.forEach((di, row) => {
        const T = datums[di]!.modelInput.length;
        logprobs[di] = Array.from(res.logprobs.subarray(row * mb.seqLen, row * mb.seqLen + T));
        entropy.add(res.entropy.subarray(row * mb.seqLen, row * mb.seqLen + T), datums[di]!.mask);
      });
    }
    return { logprobs, metrics: { loss: weight !== 0 ? total / weight : 0, ...backendLossMetrics(loss, datums, logprobs), entropy: entropy.mean() } };
  }

  /**
   * Learner logprobs of each datum's targets under the current weights, without gradients (the custom-loss path's
   * forward). Same micro-batching and temperature rule as {@link LocalEngine.forwardBackward}.
   * @throws BackendInputError for malformed datums or a temperature that is not a finite number ≥ 0.
   */
  forward(datums: readonly Datum[], temperature = 1): number[][] {
    return this.forwardWithEntropy(datums, temperature).logprobs;
  }

  /**
   * {@link LocalEngine.forward} plus `entropy`: the mean over masked tokens of the full-vocabulary entropy (nats) of
   * the learner's tempered softmax (0 when nothing is masked).
   * @throws BackendInputError as {@link LocalEngine.forward}.
   */
  forwardWithEntropy(datums: readonly Datum[], temperature = 1): { logprobs: number[][]; entropy: number } {
    if (!(temperature >= 0) || !Number.isFinite(temperature))
      throw new BackendInputError('sampling.temperature', `must be a finite number ≥ 0, got ${temperature}`);
    validateDatums(datums, this.cfg.vocabSize, this.cfg.contextTokens);
    const out: number[][] = new Array(datums.length);
    const entropy = new MaskedMean();
    for (const mb of planMicroBatches(
      datums.map((d) => d.modelInput.length),
      this.cfg.contextTokens,
      this.#maxBatchTokens,
    )) {
      const n = mb.batch * mb.seqLen;
      const tokens = new Int32Array(n);
      const targets = new Int32Array(n);
      mb.indices.forEach((di, row) => {
        const d = datums[di]!;
        tokens.set(d.modelInput, row * mb.seqLen);
        targets.set(d.targetTokens, row * mb.seqLen);
      });
      const r = this.#kernels.logprobsAndEntropy(this.#params, mb.batch, mb.seqLen, tokens, targets, temperature === 0 ? 1 : temperature);
      mb.indices.forEach((di, row) => {
        const d = datums[di]!;
        out[di] = Array.from(r.logprobs.subarray(row * mb.seqLen, row * mb.seqLen + d.modelInput.length));
        entropy.add(r.entropy.subarray(row * mb.seqLen, row * mb.seqLen + d.modelInput.length), d.mask);
      });
    }
    return { logprobs: out, entropy: entropy.mean() };
  }

  optimStep(opts: AdamParams): OptimStepResult {
    if (!(opts.learningRate >= 0) || !Number.isFinite(opts.learningRate)) {
      throw new BackendInputError('learningRate', `must be a finite number ≥ 0, got ${opts.learningRate}`);
    }
    if (this.#grads === undefined) return { metrics: { grad_norm: 0, step: this.#adam.step } };
    const { params, gradNorm } = adamStep(this.#params, this.#grads, this.#adam, opts);
    this.#params = params;
    this.#grads = undefined;
    return { metrics: { grad_norm: gradNorm, learning_rate: opts.learningRate, step: this.#adam.step } };
  }

  /** Logprob of each token given its prefix under `params` (default: current weights); entry 0 is null. */
  computeLogprobs(tokens: readonly number[], params: Params = this.#params): (number | null)[] {
    if (tokens.length === 0) return [];
    checkTokens('tokens', tokens, this.cfg.vocabSize);
    if (tokens.length > this.cfg.contextTokens) {
      throw new BackendInputError('tokens', `length ${tokens.length} exceeds the context of ${this.cfg.contextTokens} tokens`);
    }
    const T = tokens.length - 1;
    if (T === 0) return [null];
    const L = seqBucket(T, this.cfg.contextTokens);
    const inp = new Int32Array(L);
    const tgt = new Int32Array(L);
    for (let t = 0; t < T; t++) {
      inp[t] = tokens[t]!;
      tgt[t] = tokens[t + 1]!;
    }
    const lp = this.#kernels.logprobs(params, 1, L, inp, tgt);
    return [null, ...Array.from(lp.subarray(0, T))];
  }

  dispose(): void {
    tree.dispose(this.#params);
    tree.dispose(this.#adam.m);
    tree.dispose(this.#adam.v);
    tree.dispose(this.#grads);
    this.#grads = undefined;
  }
}

function pack(
  datums: readonly Datum[],
  coefs: readonly Float32Array[],
  indices: readonly number[],
  batch: number,
  seqLen: number,
  weight: number,
  entropyCoef: number,
): PackedBatch {
  const n = batch * seqLen;
  const b = {
    batch,
    seqLen,
    tokens: new Int32Array(n),
    targets: new Int32Array(n),
    coef: new Float32Array(n),
    oldLogprobs: new Float32Array(n),
    advantages: new Float32Array(n),
    mask: new Float32Array(n),
    entropyCoef: new Float32Array(n),
  };
  indices.forEach((di, row) => {
    const d = datums[di]!;
    const c = coefs[di]!;
    const o = row * seqLen;
    for (let t = 0; t < d.modelInput.length; t++) {
      b.tokens[o + t] = d.modelInput[t]!;
      b.targets[o + t] = d.targetTokens[t]!;
      b.coef[o + t] = c[t]! * weight;
      b.oldLogprobs[o + t] = d.logprobs[t]!;
      b.advantages[o + t] = d.advantages[t]!;
      b.mask[o + t] = d.mask[t]! !== 0 ? 1 : 0;
      b.entropyCoef[o + t] = c[t]! * weight * entropyCoef;
    }
  });
  return b;
}

/** Mean of per-position values over the positions a mask marks (0 when none is). */
class MaskedMean {
  #sum = 0;
  #n = 0;
  add(values: ArrayLike<number>, mask: readonly number[]): void {
    for (let t = 0; t < mask.length; t++) {
      if (mask[t] === 0) continue;
      this.#sum += values[t]!;
      this.#n += 1;
    }
  }
  mean(): number {
    return this.#n > 0 ? this.#sum / this.#n : 0;
  }
}
