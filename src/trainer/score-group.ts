import type { GroupReward, Reward } from '../types/reward.js';
import { addGroupRewards } from '../reward/group-reward.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { scoreTrajectory } from '../reward/score-trajectories.js';

/**
 * The rewards of one finished group: each member's score (already started for members scored as they ended, in
 * `started`; the rest scored now), then the group reward, when there is one, added to the survivors. A group reward
 * that throws drops every member with `reward_error`.
 */
export async function scoreFinishedGroup(
  opts: { reward: Reward; groupReward?: GroupReward; timeoutMs: number; signal: AbortSignal },
  example: Example,
  trajectories_G: readonly Trajectory[],
  started: ReadonlyMap<Trajectory, Promise<RewardResult>> = new Map(),
): Promise<RewardResult[]> {
  const o = { timeoutMs: opts.timeoutMs, signal: opts.signal };
  const rewards_G = await Promise.all(trajectories_G.map((t) => started.get(t) ?? scoreTrajectory(opts.reward, t, o)));
  if (!opts.groupReward || opts.signal.aborted) return rewards_G;
  try {
    return addGroupRewards(rewards_G, await opts.groupReward({ example, trajectories_G, rewards_G }));
  } catch (e) {
    const cause = `group reward: ${e instanceof Error ? e.message : String(e)}`;
    return rewards_G.map((r) => (r.drop ? r : { ...r, reward: 0, failure: 'reward_error' as const, drop: true, cause }));
  }
}
