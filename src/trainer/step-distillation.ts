import type { SamplingClient } from '../backend/types.js';
import type { Datum } from '../types/datum.js';
import { klPenaltyInAdvantages } from '../loss/index.js';
import { clientLogprobs } from './datum-logprobs.js';

/** On-policy distillation of one step: the teacher and the weight of its reverse-KL reward. */
export interface StepDistillation {
  readonly teacher: SamplingClient;
  readonly coef: number;
}

/**
 * On-policy distillation: the teacher's logprobs of the student's own samples give the per-token reverse-KL reward
 * `−coef·(lp_student − lp_teacher)`, added to the advantages (tinker-cookbook `distillation`; Agarwal et al. 2024
 * "On-policy distillation of language models"). Metric `distill/reverse_kl_mean`.
 */
export async function applyDistillation(
  datums_D: readonly Datum[],
  distill: StepDistillation,
): Promise<{ datums_D: Datum[]; metrics: Record<string, number> }> {
  const teacher = await clientLogprobs(distill.teacher, datums_D);
  const r = klPenaltyInAdvantages(datums_D, teacher, distill.coef, 'k1');
  return { datums_D: r.datums_D, metrics: { 'distill/reverse_kl_mean': r.mean } };
}
