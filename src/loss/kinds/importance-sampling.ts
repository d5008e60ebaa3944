import { z } from '../../util/zod.js';
import type { LossConfig } from '../../types/loss-config.js';
import { perPosition, ratioAt, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema } from './number-schemas.js';

type Is = Extract<LossConfig, { kind: 'importance_sampling' }>;

const schema = z.strictObject({ kind: z.literal('importance_sampling'), aggregation: aggregationSchema.optional() });

/** `importance_sampling`: `ℓ_t = −r_t·A_t`, `∂ℓ/∂lp = −r·A` (Tinker `importance_sampling`). Never clips. */
export const importanceSamplingLoss: LossDefinition<Is> = {
  kind: 'importance_sampling',
  needs: ['samplingLogprobs', 'advantages'],
  rl: true,
  optionKeys: ['aggregation'],
  describe: (c) => `importance sampling, ${c.aggregation ?? 'token-mean'}`,
  perToken: (_c, s) => perPosition(s, (t) => ((s.advantages[t] as number) === 0 ? 0 : -ratioAt(s, t) * (s.advantages[t] as number))),
  grad: (_c, s, coef) =>
    perPosition(s, (t) => ((s.advantages[t] as number) === 0 || coef[t] === 0 ? 0 : -ratioAt(s, t) * (s.advantages[t] as number) * (coef[t] as number))),
  clipped: (_c, s) => perPosition(s, () => false),
  native: { lossFn: 'importance_sampling', scales: 'advantages', nonNegativeScale: false },
  schema,
};

export { schema as importanceSamplingSchema };
