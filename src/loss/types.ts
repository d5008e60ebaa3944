import type { Datum } from '../types/datum.js';
import type { Turn } from '../types/trajectory.js';

/**
 * Vocabulary of the loss layer: option and result shapes shared by its pure functions.
 * Axis suffixes follow tinker-cookbook: `_G` group members, `_D` datums, `_T` tokens, `_K` micro-batches.
 * Logprobs are natural-log probabilities everywhere.
 */

/** How group rewards become advantages. See {@link AdvantageOptions}. */
export type AdvantageNormalization = 'none' | 'std' | 'rloo';

/** Options of `groupAdvantages`. */
export interface AdvantageOptions {
  /**
   * - `'none'`: `A_i = R_i − mean(R)` (GRPO centring as in tinker-cookbook and the ReTool recipe).
   * - `'std'`: `A_i = (R_i − mean(R)) / (std(R) + eps)`, population std (GRPO, DeepSeekMath).
   * - `'rloo'`: `A_i = R_i − mean(R_{−i})`, the leave-one-out baseline (RLOO, Ahmadian et al. 2024).
   * @default 'none'
   */
  readonly normalize?: AdvantageNormalization;
  /** Added to the std in `'std'` mode; must be > 0. @default 1e-6 */
  readonly eps?: number;
}

/** The parts of a {@link Turn} that datum construction reads. A full `Turn` is assignable. */
export type DatumTurn = Pick<Turn, 'promptTokens' | 'completionTokens' | 'logprobs' | 'newDatum'>;

/** The part of a `Trajectory` that datum construction reads. A full `Trajectory` is assignable. */
export interface DatumSource {
  /** The assistant turns, in order. */
  readonly turns: readonly DatumTurn[];
}

export type { PrefixMismatchPolicy } from '../types/prefix-mismatch.js';
import type { PrefixMismatchPolicy } from '../types/prefix-mismatch.js';

/** Options of `buildDatum`. */
export interface BuildDatumOptions {
  /**
   * Keep at most this many positions (tokens of `modelInput`) per datum; every array is cut at the
   * same index, so truncated datums keep their shape. Integer ≥ 1. @default unlimited
   */
  readonly maxTokens?: number;
}

/** Options of `buildDatums`. */
export interface BuildDatumsOptions extends BuildDatumOptions {
  /**
   * A turn whose prompt does not extend the tokens so far (see {@link PrefixMismatchPolicy}): `'drop'` leaves that
   * trajectory out (listed in `dropped`), `'split'` closes the current datum and starts a new one from the full
   * prompt of the mismatching turn (tinker-cookbook `trajectory_to_data`), `'fail'` throws `PromptPrefixError`.
   * @default 'drop'
   */
  readonly onPrefixMismatch?: PrefixMismatchPolicy;
  /**
   * Skip trajectories whose advantage is exactly 0 (degenerate groups carry no gradient; the ReTool
   * seed's `build_training_datums` drops them). @default false
   */
  readonly skipZeroAdvantage?: boolean;
}

/** Datums built from a batch of trajectories, with the trajectory each datum came from. */
export interface DatumBatch<D = Datum> {
  /** One or more datums per trajectory (more only with `onPrefixMismatch: 'split'`). */
  readonly datums: readonly D[];
  /** `trajectoryIndex[d]` = index into the input trajectories of `datums[d]`. */
  readonly trajectoryIndex: readonly number[];
  /** Trajectories left out under `onPrefixMismatch: 'drop'`: index into the input and the mismatch. Empty otherwise. */
  readonly dropped: readonly { readonly trajectoryIndex: number; readonly message: string }[];
}

/** How the `maxTokensPerBatch` budget counts a micro-batch's tokens. */
export type TokenBudget = 'padded' | 'sum';

/** Options of `packMicroBatches`. */
export interface PackOptions {
  /**
   * Token budget per micro-batch (integer ≥ 1). A datum longer than the budget on its own is placed
   * alone in its own micro-batch (never dropped, never split; truncate with `maxTokens` beforehand).
   */
  readonly maxTokensPerBatch: number;
  /** At most this many datums per micro-batch (integer ≥ 1). @default unlimited */
  readonly maxDatumsPerBatch?: number;
  /**
   * `'padded'` (default): cost = datums × longest datum (what a dense `[B, T]` batch occupies; the
   * "padded tokens" of KMnO4-zx/agentic-rl-lab `05-retool/train.py`). `'sum'`: cost = total positions (Tinker's packed wire format).
   * @default 'padded'
   */
  readonly budget?: TokenBudget;
}

/** One micro-batch produced by `packMicroBatches`. */
export interface MicroBatch<D> {
  /** Indices into the packed array, in packing order (longest first). */
  readonly indices: readonly number[];
  /** The datums themselves, `datums[i] = input[indices[i]]`. */
  readonly datums: readonly D[];
  /** Cost under the chosen budget (tokens). */
  readonly tokens: number;
}

/** Per-token inputs of `perTokenLoss`; all arrays have length T. */
export interface PerTokenLossInputs {
  /** Learner logprobs `log p_θ(target_t)` from the current forward pass (natural log). */
  readonly targetLogprobs: readonly number[];
  /** Sampling (behaviour-policy) logprobs, `Datum.logprobs`. Required for RL losses. */
  readonly samplingLogprobs?: readonly number[];
  /** Per-token advantages, `Datum.advantages`. Required for RL losses. */
  readonly advantages?: readonly number[];
  /** Per-token weights for `cross_entropy` (`Datum.weights ?? Datum.mask`). Required for it. */
  readonly weights?: readonly number[];
  /** `Datum.mask`. Required by sequence-level losses (`gspo`); ones when absent otherwise. */
  readonly mask?: readonly number[];
  /** `Datum.referenceLogprobs` (passed through to losses that read them). */
  readonly referenceLogprobs?: readonly number[];
}

/** Result of `referenceLoss`: the scalar loss and the metrics a backend reports next to it. */
export interface ReferenceLossResult {
  /** The aggregated loss (`optim/loss`). */
  readonly loss: number;
  /**
   * Fraction of masked tokens (`mask = 1`) on which clipping zeroed or truncated the update
   * (`optim/clip_frac`). `ppo`: `A > 0 ∧ r > clipHigh` or `A < 0 ∧ r < clipLow` (the clipped branch of the
   * `min` is strictly active, so the token's gradient is 0). `cispo`: `r < clipLow ∨ r > clipHigh` with
   * `A ≠ 0` (the importance weight was truncated). 0 for `importance_sampling` and `cross_entropy`,
   * and 0 when no token is masked.
   */
  readonly clipFrac: number;
  /**
   * `mean(samplingLogprob − targetLogprob)` over masked tokens (`optim/kl_sample_train`, cookbook
   * `kl_sample_train_v1`). 0 for `cross_entropy` (SFT datums carry no sampling logprobs) and when no token is masked.
   */
  readonly klSampleTrain: number;
  /** Number of masked tokens (`mask = 1`) in the batch. */
  readonly tokens: number;
  /**
   * `−mean(targetLogprob)` over masked tokens (`optim/entropy_sampled`): the learner's entropy estimated from the
   * sampled tokens only (unbiased for on-policy samples, `E_{y~π}[−log π(y)] = H(π)`), not the full-vocabulary entropy.
   */
  readonly entropySampled: number;
}
