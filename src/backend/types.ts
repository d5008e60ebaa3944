import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import type { SampledSequence, SamplingParams, SamplingSettings } from '../types/sampling.js';
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
  /** The model's context in tokens (prompt + completion), when the sampler knows it; `evaluate` caps budgets at it. */
  readonly maxContextTokens?: number;
  /**
   * Frees what the sampler holds (e.g. a frozen copy of the weights) once the calls in progress have finished;
   * later calls reject. Optional: samplers that hold nothing need not have it. Idempotent.
   */
  release?(): void;
}

/**
 * Adam hyperparameters (Tinker's `AdamParams`): of one `optimStep`, and of the Trainer's `optimizer` option (which adds
 * a learning-rate `schedule`). Decoupled weight decay (AdamW), global-norm gradient clipping.
 */
export interface AdamParams {
  /** Step size, > 0. In the Trainer's `optimizer`: required when `optimizer` is given, 4e-5 when it is omitted. */
  readonly learningRate: number;
  /** Adam β1, in [0, 1). @default 0.9 */
  readonly beta1?: number;
  /** Adam β2, in [0, 1). @default 0.95 */
  readonly beta2?: number;
  /** Adam ε, > 0. @default 1e-8 */
  readonly eps?: number;
  /** Decoupled (AdamW) weight decay per step, ≥ 0. @default 0 */
  readonly weightDecay?: number;
  /** Clip the global gradient L2 norm to this value; 0 = no clipping. @default 1 */
  readonly gradClipNorm?: number;
}

/**
 * The sampling settings the datums of a `forwardBackward` call were drawn with.
 * @deprecated The same type as {@link SamplingSettings}; use that name.
 */
export type LearnerSampling = SamplingSettings;

/**
 * Which sampling settings a backend's learner reproduces (see {@link TrainingBackend.samplingSupport}).
 * - `temperature`: `forwardBackward(…, { sampling: { temperature } })` scores targets with `log softmax(logits / T)`,
 *   the distribution the sampler's logprobs are reported under.
 * - `truncation`: how top-p / top-k are handled. `'full-vocabulary'`: the sampler draws from the truncated set but
 *   reports every logprob under the tempered softmax over the WHOLE vocabulary, and the learner computes the same
 *   quantity, so the ratio compares like with like (the truncation only restricts which tokens are drawn).
 *   `'renormalized'`: both sides report logprobs renormalised over the truncated set. `'unsupported'`: the backend
 *   cannot make truncated samples consistent; the Trainer refuses `topP < 1` / `topK > 0` with a `ConfigError`.
 */
export interface SamplingSupport {
  /** Whether the learner reproduces the sampler's temperature. */
  readonly temperature: boolean;
  /** How top-p / top-k truncated samples are scored (see above). */
  readonly truncation: 'full-vocabulary' | 'renormalized' | 'unsupported';
}

/**
 * What the Trainer will ask of its backend, resolved (defaults filled in), for {@link TrainingBackend.checkOptions}.
 */
export interface BackendOptionFacts {
  /** The loss the steps use. */
  readonly loss: LossConfig;
  /** Adam settings of every step (the learning rate of step 1; schedules change only it). */
  readonly optimizer: Required<AdamParams>;
  /** KL penalty: `'base'` = a sampler of this backend saved before step 1; `'client'` = a `SamplingClient` passed in. */
  readonly kl?: { readonly reference: 'base' | 'client'; readonly placement: 'advantage' | 'loss' };
  /** Rollout correction on (a zero-weight learner pass before the update). */
  readonly rolloutCorrection: boolean;
  /** On-policy distillation on (a teacher `SamplingClient` scores the datums). */
  readonly distill: boolean;
  /** `async.maxStaleness`: rollouts sample older samplers while the learner trains when > 0. */
  readonly maxStaleness: number;
  /** The run resumes from a checkpoint (`loadState` on a fresh model). */
  readonly resume: boolean;
}

/**
 * A backend's verdict on one option: `exact` (the update is the one the embedded engine makes), `adapted` (the
 * backend changes what it sends so the update is the configured one; `reason` says how) or `refused` (`reason` says
 * why; the Trainer throws `ConfigError` naming the option before the first rollout).
 */
export interface OptionVerdict {
  /** Dotted Trainer option, e.g. `loss.kind`, `optimizer.beta2`, `kl.reference`, or a backend option (`timeouts.pollMs`). */
  readonly option: string;
  /** `exact`, `adapted` or `refused` (see above). */
  readonly outcome: 'exact' | 'adapted' | 'refused';
  /** Why, in words: what is adapted and how, or why it is refused (names the engine). */
  readonly reason: string;
}

/** Options of {@link TrainingBackend.forwardBackward}. */
export interface ForwardBackwardOptions {
  /** Scales this call's contribution (micro-batch `n_k / N` weighting). @default 1 */
  readonly weight?: number;
  /** The settings the datums were sampled with. @default `{ temperature: 1 }` */
  readonly sampling?: LearnerSampling;
  /**
   * Entropy bonus coefficient β_H ≥ 0 (verl's `entropy_coeff`): the loss becomes `loss − β_H · agg(H)`, with `H_t` the
   * full-vocabulary entropy of the learner's tempered softmax at each masked token and `agg` the loss's own
   * aggregation. Only backends with {@link TrainingBackend.learnerEntropy} accept a value > 0; others throw
   * `BackendInputError`. @default 0
   */
  readonly entropyCoef?: number;
}

/** Result of one `forwardBackward` call. */
export interface ForwardBackwardResult {
  /** Learner logprobs of each datum's targets (same length as the datum). */
  readonly logprobs: number[][];
  /**
   * Scalar metrics: `loss` (the aggregated loss of this call), `clip_frac` (PPO/CISPO: fraction of
   * masked tokens whose ratio was clipped), `kl_sample_train` (mean of `logp_sample − logp_θ` over masked tokens),
   * `tokens` (masked token count), `entropy_sampled` (`−mean(logp_θ)` of the sampled tokens, an estimate), and
   * `entropy` (the full-vocabulary entropy, mean over masked tokens) on backends with `learnerEntropy`.
   */
  readonly metrics: Readonly<Record<string, number>>;
}

/** Result of one optimizer step. */
export interface OptimStepResult {
  /** Scalar metrics of the step, e.g. `grad_norm` (before clipping) and `learning_rate`. */
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
   * Which sampling settings the learner reproduces. Every backend — local or remote — must either score datums
   * under the sampler's distribution (temperature, and top-p/top-k as declared here) or say it cannot: the
   * Trainer checks this before any rollout and throws `ConfigError` for settings the backend cannot make
   * consistent. Omitted means `{ temperature: false, truncation: 'unsupported' }`: only T = 1 (or 0) untruncated.
   */
  readonly samplingSupport?: SamplingSupport;
  /**
   * `true` when the learner sees the full next-token distribution (the logits), so `forwardBackward` reports
   * `entropy` (mean over masked tokens of `−Σ_v p_v log p_v`, nats) and honours `entropyCoef`. Omitted means it
   * cannot (a Tinker server returns logprobs of the targets only): the Trainer refuses `entropyBonus` with a
   * `ConfigError`, and `optim/entropy` is absent.
   */
  readonly learnerEntropy?: boolean;
  /**
   * Computes the loss over `datums` and accumulates gradients.
   * `weight` scales this call's contribution (micro-batch `n_k / N` weighting). @default 1
   * `sampling` are the settings the datums were sampled with; the learner must compute its logprobs under the
   * same distribution (see {@link SamplingSupport}), or reject them. @default `{ temperature: 1 }`
   * @throws BackendInputError for empty or malformed datums (every backend checks DESIGN's datum invariants first:
   *   equal lengths, finite numbers, mask ∈ {0, 1}, advantage 0 where mask is 0), or sampling settings it does not support.
   */
  forwardBackward(datums: readonly Datum[], loss: LossConfig, opts?: ForwardBackwardOptions): Promise<ForwardBackwardResult>;
  /** Applies accumulated gradients with Adam and clears them. */
  optimStep(params: AdamParams): Promise<OptimStepResult>;
  /**
   * Publishes the current weights to a sampler and returns it (on-policy sampling for the next rollout); call it
   * again after `optimStep` to sample from the updated weights. Tinker's `save_weights_and_get_sampling_client`
   * (one name here; the former alias `saveWeightsAndGetSamplingClient` was removed).
   */
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
  /**
   * Checks what the Trainer will ask against what the backend's engine does (before the first rollout): one
   * {@link OptionVerdict} per option that depends on it. Synchronous when the engine is known; a promise when it must be
   * asked first (`tinkerBackend({ engine: 'auto' })`). Omitted: every option runs as on the embedded engine.
   */
  checkOptions?(facts: BackendOptionFacts): readonly OptionVerdict[] | Promise<readonly OptionVerdict[]>;
  /** Releases engine resources. */
  close(): Promise<void>;
}
