import type { Datum } from '../types/datum.js';
import type { Trajectory } from '../types/trajectory.js';
import { TOKEN_BUDGET_STOPS } from '../reward/ending.js';

/** Whether a trajectory ran into a token budget ({@link TOKEN_BUDGET_STOPS}; DAPO's "overlong" samples). */
export const isTruncated = (t: Pick<Trajectory, 'stopReason'>): boolean => TOKEN_BUDGET_STOPS.includes(t.stopReason);

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
