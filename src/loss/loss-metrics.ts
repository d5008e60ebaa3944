import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { lossDefinition, lossSequence } from './registry.js';
import type { ReferenceLossResult } from './types.js';

/**
 * The metrics every backend reports next to a loss, from the datums and the learner's logprobs of them — one loop for
 * the reference loss, the embedded engine and `tinkerBackend`, driven by the kind's registry definition:
 * `tokens` (masked tokens), `clipFrac` (masked tokens the kind's `clipped` marks), `klSampleTrain`
 * (`mean(sampling − learner)`, RL kinds only) and `entropySampled` (`−mean(learner)`), all over masked tokens; 0 when
 * nothing is masked. See {@link ReferenceLossResult}.
 */
export function lossMetrics(config: LossConfig, datums_D: readonly Datum[], logprobs_D_T: readonly (readonly number[])[]): Omit<ReferenceLossResult, 'loss'> {
  const def = lossDefinition(config);
  let tokens = 0;
  let clipped = 0;
  let kl = 0;
  let nll = 0;
  datums_D.forEach((d, i) => {
    const lp_T = logprobs_D_T[i] as readonly number[];
    const seq = lossSequence(config, {
      targetLogprobs: lp_T,
      samplingLogprobs: d.logprobs,
      advantages: d.advantages,
      weights: d.weights ?? d.mask,
      mask: d.mask,
      ...(d.referenceLogprobs ? { referenceLogprobs: d.referenceLogprobs } : {}),
    });
    const clipped_T = def.clipped(config, seq);
    d.mask.forEach((m, t) => {
      if (m === 0) return;
      tokens += 1;
      kl += (d.logprobs[t] as number) - (lp_T[t] as number);
      nll -= lp_T[t] as number;
      if (clipped_T[t]) clipped += 1;
    });
  });
  return {
    clipFrac: tokens > 0 ? clipped / tokens : 0,
    klSampleTrain: def.rl && tokens > 0 ? kl / tokens : 0,
    tokens,
    entropySampled: tokens > 0 ? nll / tokens : 0,
  };
}

/** {@link lossMetrics} under the backends' metric names (`clip_frac`, `kl_sample_train`, `tokens`, `entropy_sampled`). */
export function backendLossMetrics(config: LossConfig, datums_D: readonly Datum[], logprobs_D_T: readonly (readonly number[])[]): Record<string, number> {
  const m = lossMetrics(config, datums_D, logprobs_D_T);
  return { clip_frac: m.clipFrac, kl_sample_train: m.klSampleTrain, tokens: m.tokens, entropy_sampled: m.entropySampled };
}
