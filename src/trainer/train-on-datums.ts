import type { TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { activeDatums, maskedTokens, microBatchLossWeight, packMicroBatches } from '../loss/index.js';

export { microBatchLossWeight };

/**
 * One optimisation step over `datums`: packs them into micro-batches, runs `forwardBackward` on each
 * with its global-mean weight, then one `optimStep`. Returns averaged metrics under `optim/*` names.
 * Does nothing (and returns `{}`) when `datums` is empty.
 */
export async function trainOnDatums(
  backend: TrainingBackend,
  datums: readonly Datum[],
  opts: {
    loss: LossConfig;
    optimizer: Parameters<TrainingBackend['optimStep']>[0];
    maxTokensPerBatch: number;
    maxDatumsPerBatch: number;
    /** The settings the datums were sampled with, passed to every `forwardBackward`. */
    sampling?: SamplingSettings;
    /** Entropy bonus coefficient for every `forwardBackward` (backends with `learnerEntropy` only). */
    entropyCoef?: number;
  },
): Promise<Record<string, number>> {
  if (datums.length === 0) return {};
  const batches = packMicroBatches(datums, { maxTokensPerBatch: opts.maxTokensPerBatch, maxDatumsPerBatch: opts.maxDatumsPerBatch });
  const all = { datums: activeDatums(datums), tokens: maskedTokens(datums) };
  let loss = 0;
  let clip = 0;
  let kl = 0;
  let entropy = 0;
  let fullEntropy = 0;
  let fullEntropyReported = true;
  for (const mb of batches) {
    const weight = microBatchLossWeight(opts.loss.aggregation, mb.datums, all);
    const r = await backend.forwardBackward(mb.datums, opts.loss, {
      weight,
      ...(opts.sampling ? { sampling: opts.sampling } : {}),
      ...(opts.entropyCoef ? { entropyCoef: opts.entropyCoef } : {}),
    });
    const share = maskedTokens(mb.datums) / Math.max(1, all.tokens);
    loss += (r.metrics['loss'] ?? 0) * weight;
    clip += (r.metrics['clip_frac'] ?? 0) * share;
    kl += (r.metrics['kl_sample_train'] ?? 0) * share;
    entropy += (r.metrics['entropy_sampled'] ?? 0) * share;
    const full = r.metrics['entropy'];
    if (full === undefined) fullEntropyReported = false;
    else fullEntropy += full * share;
  }
  const step = await backend.optimStep(opts.optimizer);
  return {
    'optim/loss': loss,
    'optim/clip_frac': clip,
    'optim/kl_sample_train': kl,
    'optim/entropy_sampled': entropy,
    // The full-vocabulary entropy only where the backend has the logits (absent on Tinker, which returns target logprobs).
    ...(fullEntropyReported ? { 'optim/entropy': fullEntropy } : {}),
    'optim/micro_batches': batches.length,
    'optim/datums': datums.length,
    'optim/tokens': all.tokens,
    ...Object.fromEntries(Object.entries(step.metrics).map(([k, v]) => [`optim/${k}`, v])),
  };
}
