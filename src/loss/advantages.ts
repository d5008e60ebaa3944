import { ConfigError, DatumShapeError } from '../errors/index.js';
import type { AdvantageOptions } from './types.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const ADVANTAGE_OPTIONS = optionKeys<AdvantageOptions>({ normalize: true, eps: true });

const DEFAULT_EPS = 1e-6;

/**
 * Group-relative advantages for one group of trajectories sampled from the same prompt.
 * - `'none'` (default): `A_i = R_i − mean(R)` — GRPO's outcome supervision without the std division
 *   (DeepSeekMath, arXiv 2402.03300, §4.1.2; Dr. GRPO, arXiv 2503.20783), as the ReTool recipe
 *   (KMnO4-zx/agentic-rl-lab `05-retool/rollout.py` `assign_group_advantages`) and tinker-cookbook `compute_advantages`.
 *   Example: rewards `[+1, −1, −1, −1]` → `[1.5, −0.5, −0.5, −0.5]`.
 * - `'std'`: `A_i = (R_i − mean(R)) / (std(R) + eps)`, population std — GRPO (DeepSeekMath, Shao et al. 2024).
 * - `'rloo'`: `A_i = R_i − mean_{j≠i}(R_j) = G/(G−1)·(R_i − mean(R))` — REINFORCE leave-one-out (Ahmadian et al. 2024).
 *   A group of one has no baseline and gets `[0]`.
 *
 * @param rewards_G - total reward per trajectory of one group; finite numbers; may be empty.
 * @param opts - see {@link AdvantageOptions}.
 * @returns advantages_G in the same order; all zeros when every reward is equal (a degenerate group —
 *   see {@link isDegenerateGroup}; the caller counts it in `rollout/degenerate_group_rate`).
 * @throws DatumShapeError (`field = 'rewards'`) when a reward is not finite.
 * @throws ConfigError when `normalize` is unknown or `eps` is not a positive finite number.
 */
export function groupAdvantages(rewards_G: readonly number[], opts: AdvantageOptions = {}): number[] {
  checkOptions('groupAdvantages options', ADVANTAGE_OPTIONS, opts, { optional: true });
  const normalize = opts.normalize ?? 'none';
  const eps = opts.eps ?? DEFAULT_EPS;
  if (normalize !== 'none' && normalize !== 'std' && normalize !== 'rloo') {
    throw new ConfigError('advantage options', [{ path: 'normalize', message: `expected 'none' | 'std' | 'rloo', got ${JSON.stringify(normalize)}` }]);
  }
  if (!(Number.isFinite(eps) && eps > 0)) {
    throw new ConfigError('advantage options', [{ path: 'eps', message: `expected a finite number > 0, got ${eps}` }]);
  }
  rewards_G.forEach((r, i) => {
    if (!Number.isFinite(r)) throw new DatumShapeError('rewards', `reward ${i} is not finite (${r})`);
  });
  const G = rewards_G.length;
  if (G === 0) return [];
  if (isDegenerateGroup(rewards_G)) return rewards_G.map(() => 0);
  const mean = rewards_G.reduce((s, r) => s + r, 0) / G;
  const centred_G = rewards_G.map((r) => r - mean);
  switch (normalize) {
    case 'none':
      return centred_G;
    case 'std': {
      const variance = centred_G.reduce((s, c) => s + c * c, 0) / G;
      const scale = Math.sqrt(variance) + eps;
      return centred_G.map((c) => c / scale);
    }
    case 'rloo':
      // G ≥ 2 here: a group of one is degenerate and returned above.
      return centred_G.map((c) => (c * G) / (G - 1));
  }
}

/**
 * True when every reward of the group is equal (including groups of 0 or 1): centred advantages are all 0,
 * so the group contributes no policy gradient. tinker-cookbook `remove_constant_reward_groups`; the ReTool
 * recipe counts them (KMnO4-zx/agentic-rl-lab `05-retool/train.py` `degenerate_group_count`) and trains on none of
 * their datums. Feeds `rollout/degenerate_group_rate`.
 * @param rewards_G - total reward per trajectory of one group.
 */
export function isDegenerateGroup(rewards_G: readonly number[]): boolean {
  const first = rewards_G[0];
  return rewards_G.every((r) => r === first);
}
