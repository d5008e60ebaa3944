import { DatumShapeError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';

/** KL estimators between the policy π and a reference π_ref on a sampled token, with `x = log π_ref − log π`. */
export type KlEstimator = 'k1' | 'k2' | 'k3';

/**
 * One token's estimate of `KL(π ‖ π_ref)` from `lp = log π(y)` and `ref = log π_ref(y)` for `y ~ π` (Schulman,
 * "Approximating KL divergence", 2020): `k1 = lp − ref` (unbiased, high variance, can be negative),
 * `k2 = ½(lp − ref)²` (biased, low variance), `k3 = exp(ref − lp) − (ref − lp) − 1` (unbiased, ≥ 0; GRPO's choice).
 */
export function klEstimate(estimator: KlEstimator, lp: number, ref: number): number {
  const d = lp - ref;
  switch (estimator) {
    case 'k1':
      return d;
    case 'k2':
      return 0.5 * d * d;
    case 'k3':
      return Math.exp(-d) - 1 + d;
  }
}

/** `∂ klEstimate / ∂lp`: k1 → 1, k2 → lp − ref, k3 → 1 − exp(ref − lp). */
export function klEstimateGrad(estimator: KlEstimator, lp: number, ref: number): number {
  const d = lp - ref;
  switch (estimator) {
    case 'k1':
      return 1;
    case 'k2':
      return d;
    case 'k3':
      return 1 - Math.exp(-d);
  }
}

/** Result of {@link klPenaltyInAdvantages}. */
export interface KlPenaltyResult {
  readonly datums_D: Datum[];
  /** Mean and max of the per-token estimate over masked tokens (`kl/reference_mean`, `kl/reference_max`); 0 when none. */
  readonly mean: number;
  readonly max: number;
}

/**
 * KL to a reference folded into the advantages (tinker-cookbook's `incorporate_kl_penalty`, verl's
 * `use_kl_in_reward`): on every masked token `A_t ← A_t − coef·k(lp_t, ref_t)` with `lp_t` the sampling logprob
 * (`Datum.logprobs`, the policy that drew the token) and `ref_t` the reference's logprob of the same token. Pure.
 * @param referenceLogprobs_D_T - per datum, the reference model's logprob of each target (same shape as the datums).
 * @param coef - the penalty coefficient β ≥ 0.
 * @throws DatumShapeError (`referenceLogprobs`) on a shape mismatch or a non-finite reference logprob on a masked token.
 */
export function klPenaltyInAdvantages(
  datums_D: readonly Datum[],
  referenceLogprobs_D_T: readonly (readonly number[])[],
  coef: number,
  estimator: KlEstimator,
): KlPenaltyResult {
  if (referenceLogprobs_D_T.length !== datums_D.length)
    throw new DatumShapeError('referenceLogprobs', `${referenceLogprobs_D_T.length} rows for ${datums_D.length} datums`);
  let n = 0;
  let sum = 0;
  let max = Number.NEGATIVE_INFINITY;
  const out = datums_D.map((d, i) => {
    const ref_T = referenceLogprobs_D_T[i]!;
    if (ref_T.length !== d.logprobs.length)
      throw new DatumShapeError('referenceLogprobs', `datum ${i}: ${ref_T.length} logprobs for ${d.logprobs.length} tokens`);
    return {
      ...d,
      advantages: d.advantages.map((a, t) => {
        if (d.mask[t] === 0) return a;
        const ref = ref_T[t]!;
        if (!Number.isFinite(ref)) throw new DatumShapeError('referenceLogprobs', `datum ${i}, token ${t}: ${ref} is not a finite logprob`);
        const k = klEstimate(estimator, d.logprobs[t]!, ref);
        n += 1;
        sum += k;
        max = Math.max(max, k);
        return a - coef * k;
      }),
    };
  });
  return { datums_D: out, mean: n > 0 ? sum / n : 0, max: n > 0 ? max : 0 };
}
