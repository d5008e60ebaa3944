import type { NativeLossKind as LossKind } from '../../types/loss-config.js';
import { np, lax, type JaxArray } from './jax.js';
import { unreachable } from '../../errors/internal-error.js';

/**
 * Per-token loss inside the engine (Tinker's built-in losses, `src/types/loss-config.ts`),
 * with `r = exp((logp_θ − logp_sample)·mask)` so masked/padded positions have r = 1 and stay finite.
 * The caller multiplies by per-token aggregation coefficients (0 on masked and padded positions).
 * - `cross_entropy`: `−logp_θ` (weights are folded into the coefficients).
 * - `importance_sampling`: `−r·A`.
 * - `ppo`: `−min(r·A, clip(r, lo, hi)·A)`.
 * - `cispo`: `−sg(clip(r, lo, hi))·logp_θ·A`.
 * All arguments are consumed. `lo`/`hi` are scalar arrays so changing them never recompiles.
 */
export function perTokenLossKernel(kind: LossKind, lp: JaxArray, oldLp: JaxArray, adv: JaxArray, mask: JaxArray, lo: JaxArray, hi: JaxArray): JaxArray {
  if (kind === 'cross_entropy') {
    for (const a of [oldLp, adv, mask, lo, hi]) a.dispose();
    return lp.mul(-1);
  }
  const ratio = np.exp(lp.ref.sub(oldLp).mul(mask));
  switch (kind) {
    case 'importance_sampling':
      lo.dispose();
      hi.dispose();
      lp.dispose();
      return ratio.mul(adv).mul(-1);
    case 'ppo': {
      lp.dispose();
      const unclipped = ratio.ref.mul(adv.ref);
      const clipped = np.clip(ratio, lo, hi).mul(adv);
      return np.minimum(unclipped, clipped).mul(-1);
    }
    case 'cispo': {
      const w = lax.stopGradient(np.clip(ratio, lo, hi));
      return w.mul(lp).mul(adv).mul(-1);
    }
    default:
      return unreachable(kind, 'loss kind');
  }
}
