import { z } from '../../util/zod.js';
import type { LossConfig } from '../../types/loss-config.js';
import { clip, perPosition, ratioAt, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema, lowerRatioBound, upperRatioBound } from './number-schemas.js';

type Ppo = Extract<LossConfig, { kind: 'ppo' }>;

const schema = z.strictObject({
  kind: z.literal('ppo'),
  clipLow: lowerRatioBound(),
  clipHigh: upperRatioBound(),
  aggregation: aggregationSchema.optional(),
});

const isClipped = (c: Ppo, r: number, a: number): boolean => (a > 0 && r > c.clipHigh) || (a < 0 && r < c.clipLow);

/**
 * `ppo`: `ℓ_t = −min(r_t·A_t, clip(r_t, clipLow, clipHigh)·A_t)` with absolute ratio bounds (PPO, Schulman et al. 2017;
 * asymmetric clip-higher 0.8 / 1.28 from DAPO, Yu et al. 2025); `∂ℓ/∂lp = −r·A` where the unclipped branch is active,
 * 0 where clipping is. Tinker `ppo` (its `loss_fn_config` comes from `bounds`: `backend/tinker/protocol/loss-fn.ts`).
 */
export const ppoLoss: LossDefinition<Ppo> = {
  kind: 'ppo',
  needs: ['samplingLogprobs', 'advantages'],
  rl: true,
  optionKeys: ['clipLow', 'clipHigh', 'aggregation'],
  describe: (c) => `ppo clip [${c.clipLow}, ${c.clipHigh}], ${c.aggregation ?? 'token-mean'}`,
  perToken: (c, s) =>
    perPosition(s, (t) => {
      const a = s.advantages[t] as number;
      if (a === 0) return 0;
      const r = ratioAt(s, t);
      return -Math.min(r * a, clip(r, c.clipLow, c.clipHigh) * a);
    }),
  grad: (c, s, coef) =>
    perPosition(s, (t) => {
      const a = s.advantages[t] as number;
      if (a === 0 || coef[t] === 0) return 0;
      const r = ratioAt(s, t);
      return isClipped(c, r, a) ? 0 : -r * a * (coef[t] as number);
    }),
  clipped: (c, s) => perPosition(s, (t) => (s.advantages[t] as number) !== 0 && isClipped(c, ratioAt(s, t), s.advantages[t] as number)),
  native: {
    lossFn: 'ppo',
    bounds: (c) => [c.clipLow, c.clipHigh],
    scales: 'advantages',
    nonNegativeScale: true,
  },
  schema,
};

export { schema as ppoSchema };
