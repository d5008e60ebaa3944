import type { Datum } from '../types/datum.js';
import type { Trajectory } from '../types/trajectory.js';

const TRUNCATED: ReadonlySet<Trajectory['stopReason']> = new Set(['max_trajectory_tokens', 'max_turn_tokens']);

/** Whether a trajectory ran into a token budget (DAPO's "overlong" samples). */
export const isTruncated = (t: Pick<Trajectory, 'stopReason'>): boolean => TRUNCATED.has(t.stopReason);

/**
 * DAPO's overlong filtering (`overlong: { filter: true }`; TRL `mask_truncated_completions`): the datums of truncated
 * trajectories ({@link isTruncated}) are masked out of the loss (mask and advantages 0); the rest are kept as they are.
 * @param sources_D - per datum, the trajectory it was built from.
 * @returns the datums and how many were masked out (metric `rollout/overlong_filtered`).
 */
export function filterOverlong(datums_D: readonly Datum[], sources_D: readonly Pick<Trajectory, 'stopReason'>[]): { datums_D: Datum[]; filtered: number } {
  let filtered = 0;
  const out = datums_D.map((d, i) => {
    if (!isTruncated(sources_D[i]!)) return d;
    filtered++;
    return { ...d, mask: d.mask.map(() => 0), advantages: d.advantages.map(() => 0) };
  });
  return { datums_D: out, filtered };
}
