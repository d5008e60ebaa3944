import type { SamplingClient, TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import { correctRollouts, klPenaltyInAdvantages, withKlLoss, type KlEstimator, type RolloutCorrectionConfig } from '../loss/index.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import type { Trajectory } from '../types/trajectory.js';
import { scheduledLearningRate, type LrSchedule } from './lr-schedule.js';
import { trainOnDatums } from './train-on-datums.js';
import { ConfigError } from '../errors/index.js';

/** The algorithm options of one step, resolved (`kl.reference` already a sampling client). */
export interface StepAlgorithms {
  readonly kl?: { readonly coef: number; readonly reference: SamplingClient; readonly estimator: KlEstimator; readonly placement: 'advantage' | 'loss' };
  readonly distill?: { readonly teacher: SamplingClient; readonly coef: number };
  readonly rolloutCorrection?: RolloutCorrectionConfig;
  readonly overlongFilter: boolean;
}

const TRUNCATED: ReadonlySet<Trajectory['stopReason']> = new Set(['max_trajectory_tokens', 'max_turn_tokens']);

/** Whether a trajectory ran into a token budget (DAPO's "overlong" samples). */
export const isTruncated = (t: Pick<Trajectory, 'stopReason'>): boolean => TRUNCATED.has(t.stopReason);

/** A sampling client's logprob of each datum's targets (`computeLogprobs` of `modelInput ++ [last target]`, entries 1…T). */
export async function clientLogprobs(client: Pick<SamplingClient, 'computeLogprobs'>, datums_D: readonly Datum[]): Promise<number[][]> {
  return Promise.all(
    datums_D.map(async (d) => {
      const lp = await client.computeLogprobs([...d.modelInput, d.targetTokens[d.targetTokens.length - 1]!]);
      return lp.slice(1).map((x) => x ?? 0);
    }),
  );
}

/**
 * The learner's logprobs of the datums under the current weights and the sampler's distribution, via a
 * `forwardBackward` with weight 0 (no gradient contribution; every backend has it). Costs one forward+backward.
 */
export async function learnerLogprobs(backend: TrainingBackend, datums_D: readonly Datum[], sampling: SamplingSettings | undefined, maxDatums: number): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < datums_D.length; i += maxDatums) {
    const chunk = datums_D.slice(i, i + maxDatums);
    const r = await backend.forwardBackward(chunk, { kind: 'cross_entropy', aggregation: 'token-sum' }, { weight: 0, ...(sampling ? { sampling } : {}) });
    out.push(...r.logprobs);
  }
  return out;
}

/**
 * Applies the step's algorithms to its datums, in this order: overlong filtering (datums of truncated trajectories
 * masked out), rollout correction (against the learner's logprobs before the update), the KL penalty to the
 * reference (in the advantages, or a loss wrapped with {@link withKlLoss}), and on-policy distillation (the
 * per-token reverse-KL reward `−coef·(lp_student − lp_teacher)` in the advantages; tinker-cookbook `distillation`,
 * Agarwal et al. 2024 "On-policy distillation of language models"). Returns the datums, the loss to train with and
 * the metrics (`rollout_corr/*`, `kl/reference_mean|max`, `distill/reverse_kl_mean`, `rollout/overlong_filtered`).
 */
export async function applyStepAlgorithms(args: {
  readonly backend: TrainingBackend;
  readonly datums_D: readonly Datum[];
  readonly sources_D: readonly Pick<Trajectory, 'stopReason'>[];
  readonly loss: LossConfig;
  readonly algorithms: StepAlgorithms;
  readonly sampling?: SamplingSettings;
  readonly maxDatums: number;
}): Promise<{ datums_D: Datum[]; loss: LossConfig; metrics: Record<string, number> }> {
  const { backend, algorithms: a } = args;
  let datums_D = [...args.datums_D];
  let loss = args.loss;
  const metrics: Record<string, number> = {};
  if (a.overlongFilter) {
    let filtered = 0;
    datums_D = datums_D.map((d, i) => {
      if (!isTruncated(args.sources_D[i]!)) return d;
      filtered++;
      return { ...d, mask: d.mask.map(() => 0), advantages: d.advantages.map(() => 0) };
    });
    metrics['rollout/overlong_filtered'] = filtered;
  }
  if (datums_D.length === 0) return { datums_D, loss, metrics };
  if (a.rolloutCorrection) {
    const lp = await learnerLogprobs(backend, datums_D, args.sampling, args.maxDatums);
    const r = correctRollouts(datums_D, lp, a.rolloutCorrection);
    datums_D = r.datums_D;
    Object.assign(metrics, r.metrics);
  }
  if (a.kl) {
    const ref = await clientLogprobs(a.kl.reference, datums_D);
    const r = klPenaltyInAdvantages(datums_D, ref, a.kl.placement === 'advantage' ? a.kl.coef : 0, a.kl.estimator);
    metrics['kl/reference_mean'] = r.mean;
    metrics['kl/reference_max'] = r.max;
    if (a.kl.placement === 'advantage') datums_D = r.datums_D;
    else {
      datums_D = datums_D.map((d, i) => ({ ...d, referenceLogprobs: ref[i]! }));
      loss = withKlLoss(loss, a.kl.coef, a.kl.estimator);
    }
  }
  if (a.distill) {
    const teacher = await clientLogprobs(a.distill.teacher, datums_D);
    const r = klPenaltyInAdvantages(datums_D, teacher, a.distill.coef, 'k1');
    datums_D = r.datums_D;
    metrics['distill/reverse_kl_mean'] = r.mean;
  }
  return { datums_D, loss, metrics };
}

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
  if (!Number.isInteger(minibatches) || minibatches < 1) throw new ConfigError('minibatchSlices options', [{ path: 'minibatches', message: `expected an integer ≥ 1, got ${String(minibatches)}` }]);
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
