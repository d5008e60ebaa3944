import { DatumShapeError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { aggregateLoss, DEFAULT_AGGREGATION } from './aggregate.js';
import { parseLossConfig } from './loss-config-schema.js';
import { lossMetrics } from './loss-metrics.js';
import { perTokenLoss } from './per-token-loss.js';
import type { ReferenceLossResult } from './types.js';

/**
 * The reference loss of a batch: {@link perTokenLoss} per datum, masked and reduced with the config's
 * `aggregation` ({@link aggregateLoss}, default `token-mean`), plus the metrics a backend reports with it.
 * Sampling logprobs are `Datum.logprobs`, advantages `Datum.advantages`, `cross_entropy` weights
 * `Datum.weights ?? Datum.mask`; the mask is `Datum.mask`. Every backend's `forwardBackward` loss must match this.
 *
 * @param datums_D - the batch (right-shifted datums).
 * @param targetLogprobs_D_T - learner logprobs of each datum's `targetTokens` (natural log), same shape.
 * @param config - the loss.
 * @returns `{ loss, clipFrac, klSampleTrain, tokens, entropySampled }` — see {@link ReferenceLossResult} for exact definitions.
 * @throws DatumShapeError (`targetLogprobs`) when a row is missing or has the wrong length;
 *   ConfigError when `config` is invalid.
 * @see tinker-cookbook `docs/losses.mdx`, `rl/metrics.py` (`kl_sample_train_v1`); PPO (Schulman et al. 2017);
 *   DAPO (Yu et al. 2025); CISPO (MiniMax-M1, 2025).
 */
export function referenceLoss(datums_D: readonly Datum[], targetLogprobs_D_T: readonly (readonly number[])[], config: LossConfig): ReferenceLossResult {
  const cfg = parseLossConfig(config);
  if (targetLogprobs_D_T.length !== datums_D.length) {
    throw new DatumShapeError('targetLogprobs', `${targetLogprobs_D_T.length} rows for ${datums_D.length} datums`);
  }
  const perToken_D_T: number[][] = [];
  const mask_D_T: (readonly number[])[] = [];
  datums_D.forEach((d, i) => {
    const lp_T = targetLogprobs_D_T[i] as readonly number[];
    if (lp_T.length !== d.targetTokens.length) {
      throw new DatumShapeError('targetLogprobs', `datum ${i}: ${lp_T.length} logprobs for ${d.targetTokens.length} target tokens`);
    }
    perToken_D_T.push(
      perTokenLoss(cfg, {
        targetLogprobs: lp_T,
        samplingLogprobs: d.logprobs,
        advantages: d.advantages,
        weights: d.weights ?? d.mask,
        mask: d.mask,
        ...(d.referenceLogprobs ? { referenceLogprobs: d.referenceLogprobs } : {}),
      }),
    );
    mask_D_T.push(d.mask);
  });
  const loss = aggregateLoss(perToken_D_T, mask_D_T, cfg.aggregation ?? DEFAULT_AGGREGATION);
  return { loss, ...lossMetrics(cfg, datums_D, targetLogprobs_D_T) };
}
