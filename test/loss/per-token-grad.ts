import { lossDefinition, lossSequence, parseLossConfig } from '../../src/loss/index.js';
import type { PerTokenLossInputs } from '../../src/loss/index.js';
import type { LossConfig } from '../../src/types/index.js';

/**
 * The gradient a custom-loss backward uses (`src/backend/custom-loss.ts`): the kind's `grad` on the checked sequence,
 * `∂(Σ_u c_u·ℓ_u)/∂lp_t` with `coef` = all 1 unless given. Tests compare it with finite differences of `perTokenLoss`:
 * - `cross_entropy`: `−w`; `importance_sampling`: `−r·A`;
 * - `ppo`: `−r·A` where the unclipped branch is active, 0 where clipping is active;
 * - `cispo`: `−clip(r, lo, hi)·A` (the clipped weight is a constant under stop-gradient);
 * - `gspo`: `−(s/n)·Σ_{u unclipped} A_u` on each masked token (n masked tokens).
 */
export function perTokenLossGrad(rawConfig: LossConfig, inputs: PerTokenLossInputs, coef?: readonly number[]): number[] {
  const config = parseLossConfig(rawConfig);
  const seq = lossSequence(config, inputs);
  return lossDefinition(config).grad(config, seq, coef ?? new Array<number>(seq.targetLogprobs.length).fill(1));
}
