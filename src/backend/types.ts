import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import type { SampledSequence, SamplingParams } from '../types/sampling.js';
import type { Renderer } from '../chat/types.js';

/**
 * Draws completions from a fixed snapshot of the policy weights (Tinker's `SamplingClient`).
 * Transport-neutral: promises only, no engine types.
 */
export interface SamplingClient {
  /**
   * Samples `params.numSamples` continuations of `promptTokens`.
   * @throws BackendInputError for token ids outside the vocabulary or a prompt longer than the context.
   */
  sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]>;
  /** Logprob of every token given its prefix; entry 0 is `null` (no prefix). Natural log. */
  computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]>;
}

/** Adam hyperparameters for one optimizer step (Tinker's `AdamParams`). */
export interface AdamParams {
  readonly learningRate: number;
  /** @default 0.9 */
  readonly beta1?: number;
  /** @default 0.95 */
  readonly beta2?: number;
  /** @default 1e-8 */
  readonly eps?: number;
  /** Decoupled (AdamW) weight decay. @default 0 */
  readonly weightDecay?: number;
  /** Clip the global gradient L2 norm to this value; 0 disables. @default 1 */
  readonly gradClipNorm?: number;
}

/** Result of one `forwardBackward` call. */
export interface ForwardBackwardResult {
  /** Learner logprobs of each datum's targets (same length as the datum). */
  readonly logprobs: number[][];
  /**
   * Scalar metrics: `loss` (the aggregated loss of this call), `clip_frac` (PPO/CISPO: fraction of
   * masked tokens whose ratio was clipped), `kl_sample_train` (mean of `logp_sample − logp_θ` over masked tokens),
   * `tokens` (masked token count).
   */
  readonly metrics: Readonly<Record<string, number>>;
}

/** Result of one optimizer step. */
export interface OptimStepResult {
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * A trainable policy (Tinker's `TrainingClient`). Gradients accumulate across `forwardBackward`
 * calls until `optimStep`. Transport-neutral so an HTTP implementation can stand in.
 */
export interface TrainingBackend {
  /** Interface version, so a later version can live alongside this one. */
  readonly specificationVersion: 'v1';
  /** Short name for logs, e.g. `'local'`. */
  readonly name: string;
  /**
   * Computes the loss over `datums` and accumulates gradients.
   * `weight` scales this call's contribution (micro-batch `n_k / N` weighting). @default 1
   * @throws BackendInputError for empty or malformed datums.
   */
  forwardBackward(datums: readonly Datum[], loss: LossConfig, opts?: { weight?: number }): Promise<ForwardBackwardResult>;
  /** Applies accumulated gradients with Adam and clears them. */
  optimStep(params: AdamParams): Promise<OptimStepResult>;
  /** Publishes the current weights to a sampler (on-policy sampling for the next rollout). */
  saveWeightsForSampler(): Promise<SamplingClient>;
  /** Saves weights + optimizer state to a directory. */
  saveState(path: string): Promise<void>;
  /** Loads weights (and optimizer state unless `optimizer: false`) from a directory made by `saveState`. */
  loadState(path: string, opts?: { optimizer?: boolean }): Promise<void>;
  /** Logprobs of `tokens` under the current weights (entry 0 is `null`). */
  computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]>;
  /** The renderer for this model's tokenizer and chat template. */
  renderer(): Promise<Renderer>;
  /** Context length in tokens. */
  readonly maxContextTokens: number;
  /** Releases engine resources. */
  close(): Promise<void>;
}
