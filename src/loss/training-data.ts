import type { Datum } from '../types/datum.js';
import { PromptPrefixError } from '../errors/data-errors.js';
import { buildDatums } from './datum.js';
import type { GroupOutcome } from './group-outcome.js';
import type { DatumSource } from './types.js';

/** One group as {@link assembleTrainingData} reads it: its trajectories and its {@link groupOutcome}. */
export interface TrainingGroup<T extends DatumSource = DatumSource> {
  /** The group's trajectories (`_G`: one per branch), in group order. */
  readonly trajectories_G: readonly T[];
  /** The group's rewards, advantages and whether it is degenerate. */
  readonly outcome: GroupOutcome;
}

/** Options of {@link assembleTrainingData}. */
export interface AssembleOptions {
  /** Leave out degenerate groups and zero-advantage samples (ReTool seed §8.4.7). @default true */
  readonly skipDegenerateGroups?: boolean;
  /**
   * A trajectory whose next prompt does not extend the tokens before it (a chat template that rewrites history):
   * `'drop'` leaves that trajectory out (listed in `dropped`), `'split'` makes one datum per extending run of turns,
   * `'fail'` throws `PromptPrefixError`. @default 'fail'
   */
  readonly prefixMismatch?: 'drop' | 'split' | 'fail';
}

/** The training batch of one step. */
export interface TrainingData<T extends DatumSource = DatumSource> {
  /** Datums in group order, then member order. */
  readonly datums_D: readonly Datum[];
  /** Per datum, the trajectory it came from. */
  readonly sources_D: readonly T[];
  /** Trajectories left out under `prefixMismatch: 'drop'`, with the mismatch. */
  readonly dropped: readonly { readonly source: T; readonly message: string }[];
}

/**
 * Builds a step's datums from its scored groups: drops dropped groups (and degenerate ones when
 * `skipDegenerateGroups`), dropped members and members without turns, then merges each remaining trajectory into
 * datums with its advantage (`buildDatums`), under the `prefixMismatch` policy. Pure. Cf. tinker-cookbook
 * `assemble_training_data`.
 * @throws PromptPrefixError under `prefixMismatch: 'fail'`; DatumShapeError as `buildDatums`.
 */
export function assembleTrainingData<T extends DatumSource>(groups_P: readonly TrainingGroup<T>[], opts: AssembleOptions = {}): TrainingData<T> {
  const skipDegenerate = opts.skipDegenerateGroups ?? true;
  const trajectories: T[] = [];
  const advantages: number[] = [];
  for (const g of groups_P) {
    if (g.outcome.droppedGroup || (skipDegenerate && g.outcome.degenerate)) continue;
    g.trajectories_G.forEach((t, i) => {
      if (!g.outcome.kept_G[i] || t.turns.length === 0) return;
      trajectories.push(t);
      advantages.push(g.outcome.advantages_G[i]!);
    });
  }
  const policy = opts.prefixMismatch ?? 'fail';
  if (policy !== 'drop') {
    const onPrefixMismatch = policy === 'split' ? 'split' : 'throw';
    const { datums, trajectoryIndex } = buildDatums(trajectories, advantages, { skipZeroAdvantage: skipDegenerate, onPrefixMismatch });
    return { datums_D: datums, sources_D: trajectoryIndex.map((i) => trajectories[i]!), dropped: [] };
  }
  const datums_D: Datum[] = [];
  const sources_D: T[] = [];
  const dropped: { source: T; message: string }[] = [];
  trajectories.forEach((t, i) => {
    try {
      const built = buildDatums([t], [advantages[i]!], { skipZeroAdvantage: skipDegenerate }).datums;
      datums_D.push(...built);
      for (let k = 0; k < built.length; k++) sources_D.push(t);
    } catch (e) {
      if (!(e instanceof PromptPrefixError)) throw e;
      dropped.push({ source: t, message: e.message });
    }
  });
  return { datums_D, sources_D, dropped };
}
