import type { TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { Datum } from '../types/datum.js';
import { correctRollouts, type RolloutCorrectionConfig } from '../loss/index.js';
import { learnerLogprobs } from './datum-logprobs.js';

/**
 * Rollout correction of one step's datums: the learner's logprobs before the update ({@link learnerLogprobs}, one
 * forward+backward of weight 0) against the sampler's, through `correctRollouts` (`rollout_corr/*` metrics).
 */
export async function applyRolloutCorrection(
  backend: TrainingBackend,
  datums_D: readonly Datum[],
  cfg: RolloutCorrectionConfig,
  sampling: SamplingSettings | undefined,
  maxDatums: number,
): Promise<{ datums_D: Datum[]; metrics: Record<string, number> }> {
  const lp = await learnerLogprobs(backend, datums_D, sampling, maxDatums);
  const r = correctRollouts(datums_D, lp, cfg);
  return { datums_D: r.datums_D, metrics: r.metrics };
}
