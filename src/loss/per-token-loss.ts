import { DatumShapeError } from '../errors/index.js';
import type { LossConfig } from '../types/loss-config.js';
import { assertNever } from './assert-never.js';
import { parseLossConfig } from './loss-config-schema.js';
import type { PerTokenLossInputs } from './types.js';

/** Default lower ratio bound of `cispo` when `clipLow` is omitted (one-sided clip; Tinker's 2026 tutorial uses `{0, 4}`). */
export const CISPO_DEFAULT_CLIP_LOW = 0;

const clip = (x: number, lo: number, hi: number): number => Math.min(Math.max(x, lo), hi);

interface Resolved {
  readonly T: number;
  readonly lp: readonly number[];
  readonly sampling: readonly number[];
  readonly adv: readonly number[];
  readonly weights: readonly number[];
}

function need(field: keyof PerTokenLossInputs, xs: readonly number[] | undefined, T: number): readonly number[] {
  if (xs === undefined) throw new DatumShapeError(field, 'required by this loss');
  if (xs.length !== T) throw new DatumShapeError(field, `length ${xs.length} differs from targetLogprobs length ${T}`);
  return xs;
}

function resolve(config: LossConfig, inputs: PerTokenLossInputs): Resolved {
  const lp = inputs.targetLogprobs;
  const T = lp.length;
  if (config.kind === 'cross_entropy') {
    return { T, lp, sampling: [], adv: [], weights: need('weights', inputs.weights, T) };
  }
  return {
    T,
    lp,
    sampling: need('samplingLogprobs', inputs.samplingLogprobs, T),
    adv: need('advantages', inputs.advantages, T),
    weights: [],
  };
}

/** Ratio bounds `[lo, hi]` of a clipping loss, or undefined for losses that do not clip. */
export function ratioBounds(config: LossConfig): readonly [number, number] | undefined {
  switch (config.kind) {
    case 'ppo':
      return [config.clipLow, config.clipHigh];
    case 'cispo':
      return [config.clipLow ?? CISPO_DEFAULT_CLIP_LOW, config.clipHigh];
    case 'importance_sampling':
    case 'cross_entropy':
      return undefined;
    default:
      return assertNever(config);
  }
}

/**
 * Reference per-token losses — the specification every backend's loss is tested against. With
 * `r_t = exp(targetLogprob_t − samplingLogprob_t)` (natural log) and `A_t` the advantage:
 * - `cross_entropy`: `−lp_t · w_t` (Tinker `cross_entropy`).
 * - `importance_sampling`: `−r_t · A_t` (Tinker `importance_sampling`).
 * - `ppo`: `−min(r_t·A_t, clip(r_t, clipLow, clipHigh)·A_t)` with absolute ratio bounds (PPO, Schulman et al.
 *   2017; asymmetric "clip-higher" bounds 0.8 / 1.28 from DAPO, Yu et al. 2025; Tinker `ppo` with
 *   `clip_low_threshold` / `clip_high_threshold`). Example: r = 1.5, A = +1 → −1.28; r = 0.5, A = −1 → 0.8.
 * - `cispo`: `−sg(clip(r_t, clipLow, clipHigh)) · lp_t · A_t` (CISPO, MiniMax-M1, 2025; `clipLow` defaults to 0).
 *   The stop-gradient only matters for {@link perTokenLossGrad}; the value is `−clip(r)·lp·A`.
 * Positions with `A_t = 0` (RL losses) or `w_t = 0` (`cross_entropy`) have loss exactly 0, whatever the ratio.
 * No mask is applied here; {@link aggregateLoss} applies it.
 * @returns per-token losses, length T = `targetLogprobs.length`.
 * @throws DatumShapeError naming the missing or mis-sized input (`samplingLogprobs`, `advantages`, `weights`).
 * @throws ConfigError when `config` is not a valid `LossConfig`.
 * @see tinker-cookbook `docs/losses.mdx`.
 */
export function perTokenLoss(rawConfig: LossConfig, inputs: PerTokenLossInputs): number[] {
  const config = parseLossConfig(rawConfig);
  const { T, lp, sampling, adv, weights } = resolve(config, inputs);
  const bounds = ratioBounds(config);
  const out = new Array<number>(T);
  for (let t = 0; t < T; t++) {
    const l = lp[t] as number;
    if (config.kind === 'cross_entropy') {
      const w = weights[t] as number;
      out[t] = w === 0 ? 0 : -l * w;
      continue;
    }
    const a = adv[t] as number;
    if (a === 0) {
      out[t] = 0;
      continue;
    }
    const r = Math.exp(l - (sampling[t] as number));
    switch (config.kind) {
      case 'importance_sampling':
        out[t] = -r * a;
        break;
      case 'ppo': {
        const [lo, hi] = bounds as readonly [number, number];
        out[t] = -Math.min(r * a, clip(r, lo, hi) * a);
        break;
      }
      case 'cispo': {
        const [lo, hi] = bounds as readonly [number, number];
        out[t] = -clip(r, lo, hi) * l * a;
        break;
      }
      default:
        assertNever(config);
    }
  }
  return out;
}

/**
 * Derivative of each per-token loss with respect to its own `targetLogprob` (∂ℓ_t/∂lp_t), for backends that
 * implement a loss as `cross_entropy` with `weights = −∂ℓ/∂lp` (Tinker's `forward_backward_custom` recipe):
 * - `cross_entropy`: `−w`; `importance_sampling`: `−r·A`;
 * - `ppo`: `−r·A` where the unclipped branch is active, 0 where clipping is active (see {@link isClipped});
 * - `cispo`: `−clip(r, lo, hi)·A` (the clipped weight is a constant under stop-gradient).
 * @returns per-token gradients, length T; 0 where `A = 0` / `w = 0`.
 * @throws DatumShapeError, ConfigError as {@link perTokenLoss}.
 */
export function perTokenLossGrad(rawConfig: LossConfig, inputs: PerTokenLossInputs): number[] {
  const config = parseLossConfig(rawConfig);
  const { T, lp, sampling, adv, weights } = resolve(config, inputs);
  const bounds = ratioBounds(config);
  const out = new Array<number>(T);
  for (let t = 0; t < T; t++) {
    if (config.kind === 'cross_entropy') {
      const w = weights[t] as number;
      out[t] = w === 0 ? 0 : -w;
      continue;
    }
    const a = adv[t] as number;
    if (a === 0) {
      out[t] = 0;
      continue;
    }
    const r = Math.exp((lp[t] as number) - (sampling[t] as number));
    switch (config.kind) {
      case 'importance_sampling':
        out[t] = -r * a;
        break;
      case 'ppo':
        out[t] = isClipped(config, r, a) ? 0 : -r * a;
        break;
      case 'cispo': {
        const [lo, hi] = bounds as readonly [number, number];
        out[t] = -clip(r, lo, hi) * a;
        break;
      }
      default:
        assertNever(config);
    }
  }
  return out;
}

/**
 * Whether clipping changed the update of one token with ratio `r` and advantage `a`:
 * - `ppo`: `a > 0 ∧ r > clipHigh` or `a < 0 ∧ r < clipLow` (the clipped branch of the `min` is strictly smaller,
 *   so the token's gradient is 0);
 * - `cispo`: `a ≠ 0 ∧ (r < clipLow ∨ r > clipHigh)` (the importance weight was truncated);
 * - `importance_sampling`, `cross_entropy`: never.
 * This is what `clipFrac` counts.
 */
export function isClipped(config: LossConfig, r: number, a: number): boolean {
  const bounds = ratioBounds(config);
  if (bounds === undefined || a === 0) return false;
  const [lo, hi] = bounds;
  if (config.kind === 'cispo') return r < lo || r > hi;
  return (a > 0 && r > hi) || (a < 0 && r < lo);
}
