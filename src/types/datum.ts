/**
 * One training sequence, already right-shifted: position t predicts `targetTokens[t]` from
 * `modelInput[0..t]`. All five arrays have the same length.
 * Observation and prompt positions have `mask = 0`, `logprobs = 0`, `advantages = 0`.
 */
export interface Datum {
  /** Input token ids (length T). */
  readonly modelInput: readonly number[];
  /** Next-token targets (length T). */
  readonly targetTokens: readonly number[];
  /** Sampling logprobs of each target (natural log; 0 where mask = 0). */
  readonly logprobs: readonly number[];
  /** Per-token advantage (0 where mask = 0). */
  readonly advantages: readonly number[];
  /** 1 on sampled (trainable) tokens, 0 elsewhere. */
  readonly mask: readonly number[];
  /** Per-token loss weight for `cross_entropy`; defaults to `mask`. */
  readonly weights?: readonly number[];
  /**
   * A reference model's logprob of each target (natural log), read only by losses that use it (the Trainer's
   * `kl: { placement: 'loss' }`); backends do not send it anywhere.
   */
  readonly referenceLogprobs?: readonly number[];
}
