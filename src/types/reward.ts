/**
 * Typed reasons a reward could not credit an answer.
 * - `no_answer`: no answer in the reply, or the trajectory ended without one (a budget on tool calls or turns,
 *   an abort, an unfinished `<think>` block).
 * - `invalid_format`: the trajectory ended with an invalid turn (seed: counts as wrong).
 * - `truncated`: the trajectory was cut by a token budget (`max_turn_tokens`, `max_trajectory_tokens`).
 * - `unparseable_prediction`, `timeout`: the answer could not be checked.
 * - `gold_unparseable`: the *reference* is broken: the sample is dropped and counted, never rewarded.
 */
export type RewardFailure =
  | 'no_answer'
  | 'unparseable_prediction'
  | 'gold_unparseable'
  | 'timeout'
  | 'invalid_format'
  /** The trajectory was cut by a token budget (see `scoreTruncated`). */
  | 'truncated'
  /** The trajectory failed (`stopReason: 'error'`); it was not scored. */
  | 'rollout_error'
  /** The reward function threw. */
  | 'reward_error'
  /** The reward function did not resolve within `rewardTimeoutMs`. */
  | 'reward_timeout'
  /** Scoring was aborted (`trainer.abort()` or the evaluation's signal). */
  | 'aborted';

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
  /** Why no reward could be computed, when that happened (the sample is then scored as failed, never crashes the step). */
  readonly failure?: RewardFailure;
  /** When true the sample must be excluded from training (e.g. `gold_unparseable`). */
  readonly drop?: boolean;
  /** Why the sample was dropped, in words (the error message for `rollout_error` / `reward_error`). */
  readonly cause?: string;
}
