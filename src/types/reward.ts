/**
 * Typed reasons a reward could not credit an answer.
 * `gold_unparseable` means the *reference* is broken: the sample is dropped and counted, never rewarded.
 */
export type RewardFailure = 'no_answer' | 'unparseable_prediction' | 'gold_unparseable' | 'timeout' | 'invalid_format';

/** Outcome of scoring one trajectory. */
export interface RewardResult {
  /** Scalar reward, e.g. +1 / −1 for ReTool. */
  readonly reward: number;
  /** True when the answer was judged correct. */
  readonly correct: boolean;
  /** True when an answer could be extracted in the expected format (e.g. a `\boxed{}`). */
  readonly validFormat: boolean;
  /** The extracted answer, when one was found. */
  readonly answer?: string;
  readonly failure?: RewardFailure;
  /** When true the sample must be excluded from training (e.g. `gold_unparseable`). */
  readonly drop?: boolean;
}
