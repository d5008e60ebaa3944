/**
 * The sampling distribution: the one definition of temperature, top-p and top-k, used by a `sample` call
 * ({@link SamplingParams}), a rollout (`RolloutSampling` adds its seed), the Trainer's `sampling` option, `evaluate`,
 * and a backend's learner (`forwardBackward(…, { sampling })`, which scores datums under the same distribution).
 */
export interface SamplingSettings {
  /** Softmax temperature, ≥ 0; 0 = greedy (whose logprobs are reported at T = 1). @default 1 */
  readonly temperature?: number;
  /** Nucleus sampling: keep the smallest set of tokens with this much probability, in (0, 1]. @default 1 (off) */
  readonly topP?: number;
  /** Keep only the k most likely tokens; 0 or undefined = off. */
  readonly topK?: number;
}

/**
 * Sampling parameters for one `sample` call. Logprobs are natural log, always.
 */
export interface SamplingParams extends SamplingSettings {
  /** Number of sequences to draw from the same prompt (the group fork uses `groupSize`). @default 1 */
  readonly numSamples?: number;
  /** Maximum new tokens per sequence. */
  readonly maxTokens: number;
  /** Stop token ids; the stop token is included in the returned tokens. */
  readonly stop?: readonly number[];
  /** Seed for reproducible sampling: same seed, prompt and weights → same tokens. */
  readonly seed?: number;
  /**
   * Cancels the call: a sampler stops decoding it and rejects with `signal.reason`. Samplers that cannot
   * cancel may ignore it; the rollout engine stops waiting for them either way.
   */
  readonly signal?: AbortSignal;
  /**
   * Also return, at every sampled position, the `topLogprobs` most likely tokens with their logprobs under the same
   * distribution as `logprobs` (vLLM's `logprobs: k`). Samplers that cannot leave it out of the result. 0 or
   * undefined: none. At most {@link MAX_TOP_LOGPROBS}.
   */
  readonly topLogprobs?: number;
}

/** The most alternatives per position a sampler returns ({@link SamplingParams.topLogprobs}; vLLM's default cap). */
export const MAX_TOP_LOGPROBS = 20;

/** A token id with its natural-log probability. */
export interface TokenLogprob {
  /** Token id in the renderer's vocabulary. */
  readonly token: number;
  /** Natural-log probability of the token (≤ 0). */
  readonly logprob: number;
}

/** Why a sampled sequence ended: a stop token (`'stop'`) or the `maxTokens` limit (`'length'`). */
export type StopReason = 'stop' | 'length';

/** One sampled continuation. `tokens[i]` was drawn with log-probability `logprobs[i]`. */
export interface SampledSequence {
  /** Sampled token ids, the stop token included when the sequence ended on one. */
  readonly tokens: readonly number[];
  /** Per-token natural-log probability under the sampling distribution (temperature applied). */
  readonly logprobs: readonly number[];
  /** Why the sequence ended. */
  readonly stopReason: StopReason;
  /**
   * With {@link SamplingParams.topLogprobs} = k: per sampled position, the k most likely tokens (most likely first,
   * ties by id) under the same distribution as `logprobs`.
   */
  readonly topLogprobs?: readonly (readonly TokenLogprob[])[];
}
