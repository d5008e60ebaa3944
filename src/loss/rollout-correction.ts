import { DatumShapeError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';

/** Rollout correction between the sampler's behaviour logprobs and the learner's (see {@link correctRollouts}). */
export interface RolloutCorrectionConfig {
  /** `'token'`: one ratio per token; `'sequence'`: the product of a sequence's token ratios. */
  readonly level: 'token' | 'sequence';
  /** `'truncate'` (TIS): weight `min(ρ, cap)`; `'mask'` (MIS): drop tokens (sequences) with `ρ > cap` or `ρ < 1/cap`. */
  readonly mode: 'truncate' | 'mask';
  /** The cap C > 1 (verl / SkyRL default 2). */
  readonly cap: number;
}

/** Result of {@link correctRollouts}. */
export interface RolloutCorrectionResult {
  /** The datums with the correction applied (`_D`: one entry per datum), in input order. */
  readonly datums_D: Datum[];
  /** `rollout_corr/ratio_mean`, `rollout_corr/clipped_frac` (truncated), `rollout_corr/masked_frac` (masked), over masked tokens. */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * Corrects the residual mismatch between a sampler's logprobs `μ` (e.g. a vLLM or SGLang engine) and the learner's
 * own logprobs `π_old` of the same tokens (truncated / masked importance sampling: Yao et al. 2025, "Your efficient
 * RL framework secretly brings you off-policy RL training"; verl `rollout_corr`, SkyRL `off_policy_correction`).
 * With `ρ_t = exp(lp_learner_t − lp_sampler_t)` (token level) or `ρ = exp(Σ_t m_t(lp_learner_t − lp_sampler_t))`
 * (sequence level, the same ρ on all its tokens):
 * - `truncate`: `A_t ← min(ρ, cap)·A_t`;
 * - `mask`: `mask_t ← 0` where `ρ > cap` or `ρ < 1/cap`.
 * In both, `logprobs ← lp_learner`, so the policy loss's ratio is taken against the learner's own old policy
 * (decoupled PPO). A non-negative weight keeps `ppo` exact (its objective is positively homogeneous in A). Pure.
 * @param learnerLogprobs_D_T - per datum, the learner's logprobs of the targets before this step's update.
 * @throws DatumShapeError (`learnerLogprobs`) on a shape mismatch.
 */
export function correctRollouts(
  datums_D: readonly Datum[],
  learnerLogprobs_D_T: readonly (readonly number[])[],
  cfg: RolloutCorrectionConfig,
): RolloutCorrectionResult {
  if (learnerLogprobs_D_T.length !== datums_D.length)
    throw new DatumShapeError('learnerLogprobs', `${learnerLogprobs_D_T.length} rows for ${datums_D.length} datums`);
  let tokens = 0;
  let ratioSum = 0;
  let clipped = 0;
  let masked = 0;
  const out = datums_D.map((d, i): Datum => {
    const lp_T = learnerLogprobs_D_T[i]!;
    if (lp_T.length !== d.logprobs.length) throw new DatumShapeError('learnerLogprobs', `datum ${i}: ${lp_T.length} logprobs for ${d.logprobs.length} tokens`);
    let seqLog = 0;
    d.mask.forEach((m, t) => {
      if (m !== 0) seqLog += m * (lp_T[t]! - d.logprobs[t]!);
    });
    const ratioAt = (t: number): number => (cfg.level === 'sequence' ? Math.exp(seqLog) : Math.exp(lp_T[t]! - d.logprobs[t]!));
    const advantages = [...d.advantages];
    const mask = [...d.mask];
    d.mask.forEach((m, t) => {
      if (m === 0) return;
      const rho = ratioAt(t);
      tokens += 1;
      ratioSum += rho;
      if (cfg.mode === 'truncate') {
        if (rho > cfg.cap) clipped += 1;
        advantages[t] = Math.min(rho, cfg.cap) * d.advantages[t]!;
      } else if (rho > cfg.cap || rho < 1 / cfg.cap) {
        masked += 1;
        mask[t] = 0;
        advantages[t] = 0;
      }
    });
    return { ...d, logprobs: d.mask.map((m, t) => (m === 0 ? d.logprobs[t]! : lp_T[t]!)), advantages, mask };
  });
  const frac = (x: number) => (tokens > 0 ? x / tokens : 0);
  return {
    datums_D: out,
    metrics: {
      'rollout_corr/ratio_mean': tokens > 0 ? ratioSum / tokens : 1,
      'rollout_corr/clipped_frac': frac(clipped),
      'rollout_corr/masked_frac': frac(masked),
    },
  };
}
