import type { TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { scheduledLearningRate, type LrSchedule } from './lr-schedule.js';
import { trainOnDatums } from './train-on-datums.js';
import { ConfigError } from '../errors/index.js';

/**
 * The `minibatches` slices of a batch of `D ≥ 1` datums, always exactly `minibatches` of them, none empty, in order.
 * - `D ≥ minibatches`: contiguous slices whose sizes differ by at most one (the first `D mod minibatches` slices hold
 *   `⌈D / minibatches⌉` datums, the rest `⌊D / minibatches⌋`); every datum is in exactly one slice.
 * - `D < minibatches` (groups dropped or degenerate left fewer datums than slices): slice `k` is the single datum
 *   `⌊k·D / minibatches⌋`, so each datum is used `⌊minibatches / D⌋` or `⌈minibatches / D⌉` times per epoch.
 * An empty batch has no slices. Pure.
 * @throws ConfigError when `minibatches` is not an integer ≥ 1.
 */
export function minibatchSlices<T>(datums_D: readonly T[], minibatches: number): T[][] {
  if (!Number.isInteger(minibatches) || minibatches < 1)
    throw new ConfigError('minibatchSlices options', [{ path: 'minibatches', message: `expected an integer ≥ 1, got ${String(minibatches)}` }]);
  const D = datums_D.length;
  if (D === 0) return [];
  if (D < minibatches) return Array.from({ length: minibatches }, (_, k) => [datums_D[Math.floor((k * D) / minibatches)]!]);
  const base = Math.floor(D / minibatches);
  const larger = D % minibatches;
  const slices: T[][] = [];
  let start = 0;
  for (let k = 0; k < minibatches; k++) {
    const size = base + (k < larger ? 1 : 0);
    slices.push(datums_D.slice(start, start + size));
    start += size;
  }
  return slices;
}

/**
 * The update of one batch: `epochs` passes over the `minibatches` slices of the datums ({@link minibatchSlices}), one
 * optimizer step per slice — exactly `minibatches × epochs` optimizer steps for any non-empty batch, none for an
 * empty one (PPO epochs and minibatches, Schulman et al. 2017), each at the scheduled learning rate of this trainer step.
 * Metrics are the mean over the updates (`optim/loss`, `optim/clip_frac`, …), plus `optim/updates`,
 * `optim/clip_frac_last` (the last update's, where the ratio has moved away from 1) and `optim/lr`.
 */
export async function trainBatch(
  backend: TrainingBackend,
  datums_D: readonly Datum[],
  opts: {
    readonly loss: LossConfig;
    readonly optimizer: Parameters<TrainingBackend['optimStep']>[0] & { readonly schedule?: LrSchedule };
    readonly step: number;
    readonly maxSteps: number;
    readonly maxTokensPerBatch: number;
    readonly maxDatumsPerBatch: number;
    readonly sampling?: SamplingSettings;
    readonly minibatches: number;
    readonly epochs: number;
    /** Entropy bonus coefficient passed to every `forwardBackward` (`entropyBonus.coef`). */
    readonly entropyCoef?: number;
  },
): Promise<Record<string, number>> {
  const { schedule, ...adam } = opts.optimizer;
  const lr = scheduledLearningRate(schedule, adam.learningRate, opts.step, opts.maxSteps);
  if (datums_D.length === 0) return { 'optim/lr': lr };
  const slices = minibatchSlices(datums_D, opts.minibatches);
  const runs: Record<string, number>[] = [];
  for (let e = 0; e < opts.epochs; e++) {
    for (const slice of slices) {
      runs.push(
        await trainOnDatums(backend, slice, {
          loss: opts.loss,
          optimizer: { ...adam, learningRate: lr },
          maxTokensPerBatch: opts.maxTokensPerBatch,
          maxDatumsPerBatch: opts.maxDatumsPerBatch,
          ...(opts.sampling ? { sampling: opts.sampling } : {}),
          ...(opts.entropyCoef !== undefined ? { entropyCoef: opts.entropyCoef } : {}),
        }),
      );
    }
  }
  if (runs.length === 1) return { ...runs[0]!, 'optim/lr': lr, 'optim/updates': 1, 'optim/clip_frac_last': runs[0]!['optim/clip_frac'] ?? 0 };
  const keys = new Set(runs.flatMap((r) => Object.keys(r)));
  const mean: Record<string, number> = {};
  for (const k of keys) mean[k] = runs.reduce((s, r) => s + (r[k] ?? 0), 0) / runs.length;
  mean['optim/datums'] = datums_D.length;
  return { ...mean, 'optim/lr': lr, 'optim/updates': runs.length, 'optim/clip_frac_last': runs.at(-1)!['optim/clip_frac'] ?? 0 };
}
