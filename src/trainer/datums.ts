import type { Datum } from '../types/datum.js';
import type { Trajectory } from '../types/trajectory.js';
import { PromptPrefixError } from '../errors/data-errors.js';
import { buildDatums } from '../loss/index.js';

/**
 * The Trainer's datums under its prefix-mismatch policy (a turn whose prompt does not extend the tokens so far):
 * - `'drop'`: that trajectory is left out (listed in `dropped` with the cause); the others are built as usual;
 * - `'split'`: one datum per extending run of turns (`buildDatums({ onPrefixMismatch: 'split' })`);
 * - `'fail'`: `buildDatums` throws `PromptPrefixError`.
 */
export function trainerDatums(
  trajectories: readonly Trajectory[],
  advantages: readonly number[],
  opts: { policy: 'drop' | 'split' | 'fail'; skipZeroAdvantage: boolean },
): { datums: Datum[]; dropped: { id: string; message: string }[] } {
  if (opts.policy !== 'drop') {
    const onPrefixMismatch = opts.policy === 'split' ? 'split' : 'throw';
    return { datums: [...buildDatums(trajectories, advantages, { skipZeroAdvantage: opts.skipZeroAdvantage, onPrefixMismatch }).datums], dropped: [] };
  }
  const datums: Datum[] = [];
  const dropped: { id: string; message: string }[] = [];
  trajectories.forEach((t, i) => {
    try {
      datums.push(...buildDatums([t], [advantages[i]!], { skipZeroAdvantage: opts.skipZeroAdvantage }).datums);
    } catch (e) {
      if (!(e instanceof PromptPrefixError)) throw e;
      dropped.push({ id: t.id, message: e.message });
    }
  });
  return { datums, dropped };
}
