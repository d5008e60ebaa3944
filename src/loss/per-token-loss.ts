import type { LossConfig } from '../types/loss-config.js';
import { CISPO_DEFAULT_CLIP_LOW } from './kinds/cispo.js';
import { parseLossConfig } from './loss-config-schema.js';
import { lossDefinition, lossSequence } from './registry.js';
import type { PerTokenLossInputs } from './types.js';

export { CISPO_DEFAULT_CLIP_LOW };

/** Ratio bounds `[lo, hi]` of a clipping loss, or undefined for losses that do not clip per token (or are not built in). */
export function ratioBounds(config: LossConfig): readonly [number, number] | undefined {
  const native = lossDefinition(config).native;
  return native?.bounds?.(config as never);
}

/**
 * Reference per-token losses — the specification every backend's loss is tested against, from the kind's registry
 * definition (`src/loss/kinds/`). With `r_t = exp(targetLogprob_t − samplingLogprob_t)` (natural log) and `A_t` the
 * advantage:
 * - `cross_entropy`: `−lp_t · w_t` (Tinker `cross_entropy`).
 * - `importance_sampling`: `−r_t · A_t` (Tinker `importance_sampling`).
 * - `ppo`: `−min(r_t·A_t, clip(r_t, clipLow, clipHigh)·A_t)` with absolute ratio bounds (PPO, Schulman et al.
 *   2017; asymmetric "clip-higher" bounds 0.8 / 1.28 from DAPO, Yu et al. 2025; Tinker `ppo` with
 *   `clip_low_threshold` / `clip_high_threshold`). Example: r = 1.5, A = +1 → −1.28; r = 0.5, A = −1 → 0.8.
 * - `cispo`: `−sg(clip(r_t, clipLow, clipHigh)) · lp_t · A_t` (CISPO, MiniMax-M1, 2025; `clipLow` defaults to 0).
 * - `gspo`: `−min(s·A_t, clip(s, clipLow, clipHigh)·A_t)` with `s = exp(mean of lp − sampling over the masked tokens)`
 *   (GSPO, Zheng et al. 2025); needs `mask`.
 * - `custom`: the user's `perToken`.
 * Positions with `A_t = 0` (RL losses) or `w_t = 0` (`cross_entropy`) have loss exactly 0, whatever the ratio.
 * No mask is applied here; {@link aggregateLoss} applies it.
 * @returns per-token losses, length T = `targetLogprobs.length`.
 * @throws DatumShapeError naming the missing or mis-sized input (`samplingLogprobs`, `advantages`, `weights`, `mask`).
 * @throws ConfigError when `config` is not a valid `LossConfig`.
 * @see tinker-cookbook `docs/losses.mdx`.
 */
export function perTokenLoss(rawConfig: LossConfig, inputs: PerTokenLossInputs): number[] {
  const config = parseLossConfig(rawConfig);
  return lossDefinition(config).perToken(config, lossSequence(config, inputs));
}

/**
 * Whether clipping changed the update of one token with ratio `r` and advantage `a` (token-level kinds):
 * - `ppo`: `a > 0 ∧ r > clipHigh` or `a < 0 ∧ r < clipLow` (the clipped branch of the `min` is strictly smaller,
 *   so the token's gradient is 0);
 * - `cispo`: `a ≠ 0 ∧ (r < clipLow ∨ r > clipHigh)` (the importance weight was truncated);
 * - `gspo`: the same test as `ppo` with `r` read as the sequence ratio;
 * - `importance_sampling`, `cross_entropy`: never; `custom`: the loss's `clipped` on a one-token sequence.
 * This is what `clipFrac` counts.
 */
export function isClipped(config: LossConfig, r: number, a: number): boolean {
  const seq = { targetLogprobs: [Math.log(r)], samplingLogprobs: [0], advantages: [a], weights: [1], mask: [1] };
  return lossDefinition(config).clipped(config, seq)[0] === true;
}
