import type { TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { RolloutCorrectionConfig } from '../loss/index.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import type { Trajectory } from '../types/trajectory.js';
import { filterOverlong } from './step-overlong-filter.js';
import { applyRolloutCorrection } from './step-rollout-correction.js';
import { applyKlPenalty, type StepKl } from './step-kl-penalty.js';
import { applyDistillation, type StepDistillation } from './step-distillation.js';

/** The algorithm options of one step, resolved (`kl.reference` already a sampling client). */
export interface StepAlgorithms {
  readonly kl?: StepKl;
  readonly distill?: StepDistillation;
  readonly rolloutCorrection?: RolloutCorrectionConfig;
  readonly overlongFilter: boolean;
}

/**
 * Applies the step's algorithms to its datums, in this order: overlong filtering ({@link filterOverlong}: datums of
 * truncated trajectories masked out), rollout correction ({@link applyRolloutCorrection}: against the learner's
 * logprobs before the update), the KL penalty to the reference ({@link applyKlPenalty}: in the advantages, or a loss
 * wrapped with `withKlLoss`), and on-policy distillation ({@link applyDistillation}: the per-token reverse-KL reward
 * in the advantages). Returns the datums, the loss to train with and the metrics (`rollout/overlong_filtered`,
 * `rollout_corr/*`, `kl/reference_mean|max`, `distill/reverse_kl_mean`).
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
  const { algorithms: a } = args;
  let datums_D = [...args.datums_D];
  let loss = args.loss;
  const metrics: Record<string, number> = {};
  if (a.overlongFilter) {
    const r = filterOverlong(datums_D, args.sources_D);
    datums_D = r.datums_D;
    metrics['rollout/overlong_filtered'] = r.filtered;
  }
  if (datums_D.length === 0) return { datums_D, loss, metrics };
  if (a.rolloutCorrection) {
    const r = await applyRolloutCorrection(args.backend, datums_D, a.rolloutCorrection, args.sampling, args.maxDatums);
    datums_D = r.datums_D;
    Object.assign(metrics, r.metrics);
  }
  if (a.kl) {
    const r = await applyKlPenalty(datums_D, loss, a.kl);
    datums_D = r.datums_D;
    loss = r.loss;
    Object.assign(metrics, r.metrics);
  }
  if (a.distill) {
    const r = await applyDistillation(datums_D, a.distill);
    datums_D = r.datums_D;
    Object.assign(metrics, r.metrics);
  }
  return { datums_D, loss, metrics };
}
