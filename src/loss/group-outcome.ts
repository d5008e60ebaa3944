import { groupAdvantages, isDegenerateGroup } from './advantages.js';
import type { AdvantageNormalization } from './types.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const GROUP_OUTCOME_OPTIONS = optionKeys<GroupOutcomeOptions>({ minSurvivors: true, normalize: true });

/**
 * What one scored group contributes to training. Produced by {@link groupOutcome}; arrays are indexed by group
 * member (`_G`), in branch order.
 */
export interface GroupOutcome {
  /** Per member: true when the sample survived (not dropped by the rollout or the reward). */
  readonly kept_G: readonly boolean[];
  /** Per member: its advantage; 0 for dropped members and for every member of a dropped group. */
  readonly advantages_G: readonly number[];
  /** Every surviving reward is equal (no gradient; skipped when `skipDegenerateGroups`). False for dropped groups. */
  readonly degenerate: boolean;
  /** Fewer than `minSurvivors` members (or none) survived: the whole group is left out of training. */
  readonly droppedGroup: boolean;
  /** Members dropped (failed rollouts, reward drops). */
  readonly dropped: number;
}

/** Options of {@link groupOutcome}. */
export interface GroupOutcomeOptions {
  /** A group needs at least this many surviving members to be trained on (integer ≥ 1). @default 1 */
  readonly minSurvivors?: number;
  /** See `AdvantageOptions.normalize`. @default 'none' */
  readonly normalize?: AdvantageNormalization;
}

/**
 * Scores one group: which members survive, whether the group is dropped whole or degenerate, and the
 * group-relative advantages of the survivors (dropped members take no part in the baseline). Pure.
 * Cf. tinker-cookbook `rl/data_processing.py` (`compute_advantages`, `remove_constant_reward_groups`).
 * @param rewards_G - per member, its total reward and whether it is dropped (`drop: true`).
 * @example groupOutcome([{ reward: 1 }, { reward: 0, drop: true }, { reward: -1 }]) // advantages_G [1, 0, -1]
 */
export function groupOutcome(rewards_G: readonly { readonly reward: number; readonly drop?: boolean }[], opts: GroupOutcomeOptions = {}): GroupOutcome {
  checkOptions('groupOutcome options', GROUP_OUTCOME_OPTIONS, opts, { optional: true });
  const kept_G = rewards_G.map((r) => !r.drop);
  const survivors = kept_G.filter(Boolean).length;
  const droppedGroup = survivors === 0 || survivors < (opts.minSurvivors ?? 1);
  const keptRewards = rewards_G.filter((_, g) => kept_G[g]).map((r) => r.reward);
  const degenerate = !droppedGroup && isDegenerateGroup(keptRewards);
  const keptAdvantages = droppedGroup ? [] : groupAdvantages(keptRewards, { normalize: opts.normalize ?? 'none' });
  let k = 0;
  const advantages_G = kept_G.map((isKept) => (isKept && !droppedGroup ? keptAdvantages[k++]! : 0));
  return { kept_G, advantages_G, degenerate, droppedGroup, dropped: rewards_G.length - survivors };
}
