import type { NativeLossKind as LossKind } from '../../types/loss-config.js';
import { jit, valueAndGrad, tree, np, type JaxArray } from './jax.js';
import type { ModelConfig } from './model-config.js';
import { targetLogprobsAndEntropy } from './model.js';
import type { Params } from './params.js';
import { perTokenLossKernel } from './loss-kernels.js';

/** Host-side padded micro-batch, `[B, T]` row-major. */
export interface PackedBatch {
  readonly batch: number;
  readonly seqLen: number;
  readonly tokens: Int32Array;
  readonly targets: Int32Array;
  /** Aggregation coefficient per position (0 on masked and padded positions). */
  readonly coef: Float32Array;
  readonly oldLogprobs: Float32Array;
  readonly advantages: Float32Array;
  readonly mask: Float32Array;
  /** Entropy-bonus coefficient per position (`entropyCoef ×` the aggregation coefficient; 0 without a bonus). */
  readonly entropyCoef: Float32Array;
}

type LossGradFn = (
  p: Params,
  tokens: JaxArray,
  targets: JaxArray,
  coef: JaxArray,
  entCoef: JaxArray,
  oldLp: JaxArray,
  adv: JaxArray,
  mask: JaxArray,
  lo: JaxArray,
  hi: JaxArray,
  invT: JaxArray,
) => [[JaxArray, [JaxArray, JaxArray]], Params];

type LogprobsFn = (p: Params, tokens: JaxArray, targets: JaxArray, invT: JaxArray) => [JaxArray, JaxArray];

/** Result of one micro-batch: the loss contribution and learner logprobs `[B·T]`. */
export interface MicroStepResult {
  readonly loss: number;
  readonly logprobs: Float32Array;
  /** Full-vocabulary entropy `−Σ_v p_v log p_v` (nats) of the learner's tempered softmax at each position, `[B·T]`. */
  readonly entropy: Float32Array;
  /** Gradients of this micro-batch (caller owns them). */
  readonly grads: Params;
}

/**
 * Jitted loss-and-gradient functions, one per loss kind (shapes are bucketed, so each kind
 * compiles once per `[B, T]` bucket). Clip bounds are array inputs: changing them never recompiles.
 */
export class TrainKernels {
  readonly #cfg: ModelConfig;
  readonly #lossGrad = new Map<LossKind, LossGradFn>();
  readonly #logprobs: LogprobsFn;

  constructor(cfg: ModelConfig) {
    this.#cfg = cfg;
    this.#logprobs = jit((p: Params, tokens: JaxArray, targets: JaxArray, invT: JaxArray) => {
      const out = targetLogprobsAndEntropy(cfg, p, tokens, targets, invT);
      tree.dispose(p);
      return out;
    }) as unknown as LogprobsFn;
  }

  #kernel(kind: LossKind): LossGradFn {
    let f = this.#lossGrad.get(kind);
    if (!f) {
      const cfg = this.#cfg;
      const lossFn = (
        p: Params,
        tokens: JaxArray,
        targets: JaxArray,
        coef: JaxArray,
        entCoef: JaxArray,
        oldLp: JaxArray,
        adv: JaxArray,
        mask: JaxArray,
        lo: JaxArray,
        hi: JaxArray,
        invT: JaxArray,
      ): [JaxArray, [JaxArray, JaxArray]] => {
        const [lp, entropy] = targetLogprobsAndEntropy(cfg, p, tokens, targets, invT);
        tree.dispose(p);
        const per = perTokenLossKernel(kind, lp.ref, oldLp, adv, mask, lo, hi);
        // Entropy bonus (verl's `pg_loss − entropy_coeff · agg(entropy)`): subtracting it makes higher entropy lower the loss.
        return [per.mul(coef).sum().sub(entropy.ref.mul(entCoef).sum()), [lp, entropy]];
      };
      f = jit(valueAndGrad(lossFn, { hasAux: true })) as unknown as LossGradFn;
      this.#lossGrad.set(kind, f);
    }
    return f;
  }

  /**
   * Loss + gradients of one packed micro-batch. Does not consume `p`.
   * @param temperature - the sampler's softmax temperature (> 0): learner logprobs are `log softmax(logits / T)`.
   *   An array input, so changing it never recompiles.
   */
  lossAndGrad(kind: LossKind, p: Params, b: PackedBatch, lo: number, hi: number, temperature = 1): MicroStepResult {
    const shape = [b.batch, b.seqLen];
    const [[loss, [lp, entropy]], grads] = this.#kernel(kind)(
      tree.ref(p),
      np.array(b.tokens, { dtype: np.int32 }).reshape(shape),
      np.array(b.targets, { dtype: np.int32 }).reshape(shape),
      np.array(b.coef).reshape(shape),
      np.array(b.entropyCoef).reshape(shape),
      np.array(b.oldLogprobs).reshape(shape),
      np.array(b.advantages).reshape(shape),
      np.array(b.mask).reshape(shape),
      np.array(lo),
      np.array(hi),
      np.array(1 / temperature),
    );
    return {
      loss: (loss.dataSync() as Float32Array)[0]!,
      logprobs: Float32Array.from(lp.dataSync() as Float32Array),
      entropy: Float32Array.from(entropy.dataSync() as Float32Array),
      grads,
    };
  }

  /**
   * Learner logprobs `[B·T]` of padded `targets` given `tokens`, under `log softmax(logits / temperature)`.
   * Does not consume `p`.
   */
  logprobs(p: Params, batch: number, seqLen: number, tokens: Int32Array, targets: Int32Array, temperature = 1): Float32Array {
    return this.logprobsAndEntropy(p, batch, seqLen, tokens, targets, temperature).logprobs;
  }

  /**
   * {@link TrainKernels.logprobs} plus the full-vocabulary entropy (nats) of the same tempered softmax at each
   * position, both `[B·T]`. Does not consume `p`.
   */
  logprobsAndEntropy(
    p: Params,
    batch: number,
    seqLen: number,
    tokens: Int32Array,
    targets: Int32Array,
    temperature = 1,
  ): { logprobs: Float32Array; entropy: Float32Array } {
    const shape = [batch, seqLen];
    const [lp, entropy] = this.#logprobs(
      tree.ref(p),
      np.array(tokens, { dtype: np.int32 }).reshape(shape),
      np.array(targets, { dtype: np.int32 }).reshape(shape),
      np.array(1 / temperature),
    );
    return { logprobs: Float32Array.from(lp.dataSync() as Float32Array), entropy: Float32Array.from(entropy.dataSync() as Float32Array) };
  }
}
