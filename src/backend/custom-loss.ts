import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { backendLossMetrics, lossDefinition, lossSequence } from '../loss/index.js';
import { aggregationCoefficients } from './local/batching.js';
import type { ForwardBackwardResult } from './types.js';

/** The weighted cross-entropy every backend runs a custom loss's backward as: `−Σ_d Σ_t w_t·lp_t`. */
export const WEIGHTED_CROSS_ENTROPY: LossConfig = Object.freeze({ kind: 'cross_entropy', aggregation: 'token-sum' });

/** What a backend lends the custom-loss path: its two primitives. */
export interface CustomLossSteps {
  /** Learner logprobs of each datum's targets under the current weights, without gradients. */
  forward(datums: readonly Datum[]): Promise<number[][]>;
  /** Accumulates the gradients of `−Σ_d Σ_t weights_t·lp_t` (`cross_entropy`, `token-sum`, weight 1). */
  weightedBackward(datums: readonly Datum[]): Promise<ForwardBackwardResult>;
}

/**
 * Runs any registered loss kind on a backend that only has a forward pass and a weighted cross-entropy backward
 * (tinker-cookbook's `forward_backward_custom`): (1) a forward for the learner logprobs `lp`; (2) on the host, the
 * kind's per-token gradient `g_t = ∂(k·Σ_u c_u ℓ_u)/∂lp_t` with `c` the aggregation coefficients and `k = weight`;
 * (3) a cross-entropy backward with per-token weights `w_t = −g_t`, whose gradient `∂(−Σ w·lp)/∂θ = Σ g_t·∂lp_t/∂θ` is
 * the loss's gradient exactly (chain rule; both passes see the same weights). The reported `loss` is the aggregated
 * loss of step (2) (0 when `weight` is 0, as the native path reports), the logprobs are those of step (3), and the
 * metrics are the registry's (`clip_frac`, `kl_sample_train`, `tokens`, `entropy_sampled`).
 * @throws DatumShapeError when a custom loss returns values of the wrong length or non-finite ones; otherwise what
 *   the backend's primitives throw.
 */
export async function forwardBackwardCustom(
  steps: CustomLossSteps,
  datums: readonly Datum[],
  loss: LossConfig,
  weight: number,
): Promise<ForwardBackwardResult> {
  const def = lossDefinition(loss);
  const lp_D_T = await steps.forward(datums);
  const coefs = aggregationCoefficients(datums, loss);
  let total = 0;
  const weighted = datums.map((d, i): Datum => {
    const seq = lossSequence(loss, {
      targetLogprobs: lp_D_T[i]!,
      samplingLogprobs: d.logprobs,
      advantages: d.advantages,
      weights: d.weights ?? d.mask,
      mask: d.mask,
      ...(d.referenceLogprobs ? { referenceLogprobs: d.referenceLogprobs } : {}),
    });
    const c = coefs[i]!;
    def.perToken(loss, seq).forEach((l, t) => {
      if (c[t] !== 0) total += c[t]! * l;
    });
    const g = def.grad(
      loss,
      seq,
      Array.from(c, (x) => x * weight),
    );
    return {
      ...d,
      mask: g.map((x) => (x !== 0 ? 1 : 0)),
      weights: g.map((x) => (x !== 0 ? -x : 0)),
      advantages: g.map((x, t) => (x !== 0 ? d.advantages[t]! : 0)),
    };
  });
  const r = await steps.weightedBackward(weighted);
  return { logprobs: r.logprobs, metrics: { loss: weight !== 0 ? total : 0, ...backendLossMetrics(loss, datums, r.logprobs) } };
}
