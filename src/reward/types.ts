import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';

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
