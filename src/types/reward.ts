import type { Example } from './example.js';
import type { Trajectory } from './trajectory.js';
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

/**
 * Scores one finished trajectory. Sees the model's response (`trajectory.finalText`, turns),
 * never the prompt. May be async (e.g. an equivalence check in a worker with a timeout).
 */
export type Reward<E extends Example = Example> = (trajectory: Trajectory, example: E) => RewardResult | Promise<RewardResult>;

/**
 * A {@link Reward} that answers synchronously (e.g. `exactMatch()`): its result can be read and combined without
 * `await` or a cast, and it is a `Reward` wherever one is expected.
 */
export type SyncReward<E extends Example = Example> = (trajectory: Trajectory, example: E) => RewardResult;

/**
 * Rewards that compare a group's members (pairwise preference, ranking, a diversity bonus, a multi-agent game):
 * called once per group after every member was scored by the per-trajectory `Reward`, with the members in branch
 * order. Returns one number per member (`_G`), added to that member's reward; dropped members are ignored.
 * Cf. tinker-cookbook `EnvGroupBuilder.compute_group_rewards`.
 * @example
 * // +0.1 for the shortest correct answer of the group
 * const brevity: GroupReward = ({ trajectories_G, rewards_G }) => { … return bonus_G; };
 */
export type GroupReward<E extends Example = Example> = (group: {
  readonly example: E;
  readonly trajectories_G: readonly Trajectory[];
  readonly rewards_G: readonly RewardResult[];
}) => readonly number[] | Promise<readonly number[]>;
