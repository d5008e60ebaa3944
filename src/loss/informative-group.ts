import type { GroupOutcome } from './group-outcome.js';

/**
 * What DAPO's dynamic sampling filters groups on: `'correct'` (the default) — a group is informative when its
 * surviving members are neither all correct nor all wrong (DAPO, Yu et al. 2025, eq. 11: `0 < |{correct}| < G`;
 * verl's DAPO recipe `algorithm.filter_groups.metric: acc`); `'reward'` — when their final rewards (after shaping
 * such as the overlong penalty) are not all equal (verl `filter_groups.metric: seq_final_reward`), for graded rewards
 * whose `correct` says little.
 */
export type DynamicSamplingMetric = 'correct' | 'reward';

/**
 * Whether a scored group is kept by dynamic sampling under `metric` ({@link DynamicSamplingMetric}). A dropped group
 * (too few survivors) is never informative; dropped members take no part. Pure.
 * @param correct_G - per member, whether its answer was judged correct (`RewardResult.correct`).
 * @param outcome - the group's {@link GroupOutcome} (from its shaped rewards).
 */
export function isInformativeGroup(
  correct_G: readonly boolean[],
  outcome: Pick<GroupOutcome, 'kept_G' | 'degenerate' | 'droppedGroup'>,
  metric: DynamicSamplingMetric = 'correct',
): boolean {
  if (outcome.droppedGroup) return false;
  if (metric === 'reward') return !outcome.degenerate;
  const kept = correct_G.filter((_, g) => outcome.kept_G[g]);
  const right = kept.filter(Boolean).length;
  return right > 0 && right < kept.length;
}
