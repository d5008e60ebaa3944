import { z } from '../../util/zod.js';
import type { LossConfig } from '../../types/loss-config.js';
import { perPosition, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema } from './number-schemas.js';

type Ce = Extract<LossConfig, { kind: 'cross_entropy' }>;

const schema = z.strictObject({ kind: z.literal('cross_entropy'), aggregation: aggregationSchema.optional() });

/** `cross_entropy`: `ℓ_t = −lp_t·w_t` with `w = weights ?? mask`, `∂ℓ/∂lp = −w` (Tinker `cross_entropy`). */
export const crossEntropyLoss: LossDefinition<Ce> = {
  kind: 'cross_entropy',
  needs: ['weights'],
  rl: false,
  optionKeys: ['aggregation'],
  describe: (c) => `cross entropy, ${c.aggregation ?? 'token-mean'}`,
  perToken: (_c, s) => perPosition(s, (t) => ((s.weights[t] as number) === 0 ? 0 : -(s.targetLogprobs[t] as number) * (s.weights[t] as number))),
  grad: (_c, s, coef) => perPosition(s, (t) => ((s.weights[t] as number) === 0 || coef[t] === 0 ? 0 : -(s.weights[t] as number) * (coef[t] as number))),
  clipped: (_c, s) => perPosition(s, () => false),
  native: { lossFn: 'cross_entropy', scales: 'weights', nonNegativeScale: false },
  schema,
};

export { schema as crossEntropySchema };
