import { DatumShapeError } from '../errors/index.js';
import type { LossConfig, LossSequence } from '../types/loss-config.js';
import { defineLoss } from './kinds/custom.js';
import { klEstimate, klEstimateGrad, type KlEstimator } from './kl-penalty.js';
import { lossDefinition } from './registry.js';

function refs(s: LossSequence): readonly number[] {
  if (s.referenceLogprobs === undefined) throw new DatumShapeError('referenceLogprobs', "required by kl placement 'loss'");
  return s.referenceLogprobs;
}

/**
 * `base` plus a KL penalty to a reference inside the loss (GRPO, Shao et al. 2024, eq. 3; verl `use_kl_loss`):
 * `ℓ_t = ℓ_base,t + coef·k(lp_θ,t, ref_t)` on masked tokens, with `k` the chosen estimator of the learner's logprob
 * against `Datum.referenceLogprobs` and gradient `∂ℓ_base + coef·∂k/∂lp`. A `custom` kind, so it runs as a custom
 * loss on every backend; its clipped tokens are the base kind's.
 */
export function withKlLoss(base: LossConfig, coef: number, estimator: KlEstimator): LossConfig {
  const def = lossDefinition(base);
  const loss = defineLoss({
    name: `${base.kind}+kl(${estimator}, ${coef})`,
    level: 'sequence',
    perToken: (s) => {
      const ref = refs(s);
      return def.perToken(base as never, s).map((l, t) => (s.mask[t] === 0 ? l : l + coef * klEstimate(estimator, s.targetLogprobs[t]!, ref[t]!)));
    },
    grad: (s, c) => {
      const ref = refs(s);
      return def
        .grad(base as never, s, c)
        .map((g, t) => (s.mask[t] === 0 || c[t] === 0 ? g : g + c[t]! * coef * klEstimateGrad(estimator, s.targetLogprobs[t]!, ref[t]!)));
    },
    clipped: (s) => def.clipped(base as never, s),
  });
  return { kind: 'custom', loss, ...(base.aggregation ? { aggregation: base.aggregation } : {}) };
}
