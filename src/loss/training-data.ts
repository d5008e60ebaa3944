import type { Datum } from '../types/datum.js';
import { DEFAULT_PREFIX_MISMATCH, type PrefixMismatchPolicy } from '../types/prefix-mismatch.js';
import { buildDatums } from './datum.js';
import type { GroupOutcome } from './group-outcome.js';
import type { DatumSource } from './types.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const ASSEMBLE_OPTIONS = optionKeys<AssembleOptions>({ skipDegenerateGroups: true, onPrefixMismatch: true });

/** One group as {@link assembleTrainingData} reads it: its trajectories and its {@link groupOutcome}. */
export interface TrainingGroup<T extends DatumSource = DatumSource> {
  /** The group's trajectories (`_G`: one per branch), in group order. */
  readonly trajectories_G: readonly T[];
  /** The group's rewards, advantages and whether it is degenerate. */
  readonly outcome: GroupOutcome;
}

/** Options of {@link assembleTrainingData}. */
export interface AssembleOptions {
  /** Leave out degenerate groups and zero-advantage samples (KMnO4-zx/agentic-rl-lab `05-retool/train.py` `build_training_datums`). @default true */
  readonly skipDegenerateGroups?: boolean;
  /**
   * A trajectory whose next prompt does not extend the tokens before it (a chat template that rewrites history):
   * `'drop'` leaves that trajectory out (listed in `dropped`), `'split'` makes one datum per extending run of turns,
   * `'fail'` throws `PromptPrefixError` (see {@link PrefixMismatchPolicy}). @default 'drop'
   */
  readonly onPrefixMismatch?: PrefixMismatchPolicy;
}

/** The training batch of one step. */
export interface TrainingData<T extends DatumSource = DatumSource> {
  /** Datums in group order, then member order. */
  readonly datums_D: readonly Datum[];
  /** Per datum, the trajectory it came from. */
  readonly sources_D: readonly T[];
  /** Trajectories left out under `onPrefixMismatch: 'drop'`, with the mismatch. */
  readonly dropped: readonly { readonly source: T; readonly message: string }[];
}

/**
 * Builds a step's datums from its scored groups: drops dropped groups (and degenerate ones when
 * `skipDegenerateGroups`), dropped members and members without turns, then merges each remaining trajectory into
 * datums with its advantage (`buildDatums`), under the `onPrefixMismatch` policy. Pure. Cf. tinker-cookbook
 * `assemble_training_data`.
 * @throws PromptPrefixError under `onPrefixMismatch: 'fail'`; DatumShapeError as `buildDatums`.
 */
export function assembleTrainingData<T extends DatumSource>(groups_P: readonly TrainingGroup<T>[], opts: AssembleOptions = {}): TrainingData<T> {
  checkOptions('assembleTrainingData options', ASSEMBLE_OPTIONS, opts);
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
  const built = buildDatums(trajectories, advantages, {
    skipZeroAdvantage: skipDegenerate,
    onPrefixMismatch: opts.onPrefixMismatch ?? DEFAULT_PREFIX_MISMATCH,
  });
  return {
    datums_D: built.datums,
    sources_D: built.trajectoryIndex.map((i) => trajectories[i]!),
    dropped: built.dropped.map((d) => ({ source: trajectories[d.trajectoryIndex]!, message: d.message })),
  };
}
