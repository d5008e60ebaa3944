import type { SamplingClient } from '../backend/types.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { klPenaltyInAdvantages, withKlLoss, type KlEstimator } from '../loss/index.js';
import { clientLogprobs } from './datum-logprobs.js';

/** The KL penalty to a reference policy, resolved (`kl.reference` already a sampling client). */
export interface StepKl {
  readonly coef: number;
  readonly reference: SamplingClient;
  readonly estimator: KlEstimator;
  /** `'advantage'`: subtracted from the per-token advantages; `'loss'`: a KL term added to the loss. */
  readonly placement: 'advantage' | 'loss';
}

/**
 * The KL penalty of one step: the reference's logprobs of the datums' targets, then either the penalty in the
 * advantages (`placement: 'advantage'`) or the reference logprobs on each datum and the loss wrapped with
 * {@link withKlLoss} (`'loss'`). Metrics `kl/reference_mean`, `kl/reference_max` either way.
 */
export async function applyKlPenalty(
  datums_D: readonly Datum[],
  loss: LossConfig,
  kl: StepKl,
): Promise<{ datums_D: Datum[]; loss: LossConfig; metrics: Record<string, number> }> {
  const ref = await clientLogprobs(kl.reference, datums_D);
  const r = klPenaltyInAdvantages(datums_D, ref, kl.placement === 'advantage' ? kl.coef : 0, kl.estimator);
  const metrics = { 'kl/reference_mean': r.mean, 'kl/reference_max': r.max };
  if (kl.placement === 'advantage') return { datums_D: r.datums_D, loss, metrics };
  return { datums_D: datums_D.map((d, i) => ({ ...d, referenceLogprobs: ref[i]! })), loss: withKlLoss(loss, kl.coef, kl.estimator), metrics };
}
