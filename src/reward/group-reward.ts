import { DatumShapeError } from '../errors/index.js';
import type { RewardResult } from '../types/reward.js';

/**
 * Adds a group reward to each member's reward (see `GroupReward`). Dropped members keep their result unchanged.
 * Pure.
 * @param rewards_G - the per-trajectory results of one group.
 * @param groupRewards_G - what the group reward returned, one finite number per member.
 * @throws DatumShapeError (`field = 'rewards'`) when the lengths differ or a value is not finite.
 */
export function addGroupRewards(rewards_G: readonly RewardResult[], groupRewards_G: readonly number[]): RewardResult[] {
  if (groupRewards_G.length !== rewards_G.length)
    throw new DatumShapeError('rewards', `the group reward returned ${groupRewards_G.length} values for a group of ${rewards_G.length}`);
  const bad = groupRewards_G.findIndex((r) => !Number.isFinite(r));
  if (bad >= 0) throw new DatumShapeError('rewards', `the group reward's value for member ${bad} is not a finite number (${groupRewards_G[bad]})`);
  return rewards_G.map((r, g) => (r.drop ? r : { ...r, reward: r.reward + groupRewards_G[g]! }));
}
