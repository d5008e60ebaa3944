import { z } from '../../util/zod.js';
import type { LossConfig } from '../../types/loss-config.js';
import { clip, perPosition, ratioAt, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema, numberIn } from './number-schemas.js';

type Cispo = Extract<LossConfig, { kind: 'cispo' }>;

/** Default lower ratio bound of `cispo` when `clipLow` is omitted (one-sided clip; Tinker's 2026 tutorial uses `{0, 4}`). */
export const CISPO_DEFAULT_CLIP_LOW = 0;

const schema = z
  .strictObject({
    kind: z.literal('cispo'),
    clipLow: numberIn('a number ≥ 0', (n, error) => n.min(0, { error })).optional(),
    clipHigh: numberIn('a number > 0', (n, error) => n.gt(0, { error })),
    aggregation: aggregationSchema.optional(),
  })
  .refine((c) => c.clipLow === undefined || c.clipLow < c.clipHigh, { error: 'expected clipLow < clipHigh', path: ['clipLow'] });

const bounds = (c: Cispo): readonly [number, number] => [c.clipLow ?? CISPO_DEFAULT_CLIP_LOW, c.clipHigh];

/**
 * `cispo`: `ℓ_t = −sg(clip(r_t, clipLow, clipHigh))·lp_t·A_t` (CISPO, MiniMax-M1 2025; `clipLow` defaults to 0);
 * `∂ℓ/∂lp = −clip(r)·A` (the clipped weight is a constant under the stop-gradient). Tinker `cispo`.
 */
export const cispoLoss: LossDefinition<Cispo> = {
  kind: 'cispo',
  needs: ['samplingLogprobs', 'advantages'],
  rl: true,
  optionKeys: ['clipLow', 'clipHigh', 'aggregation'],
  describe: (c) => `cispo clip [${c.clipLow ?? 0}, ${c.clipHigh}], ${c.aggregation ?? 'token-mean'}`,
  perToken: (c, s) =>
    perPosition(s, (t) => {
      const a = s.advantages[t] as number;
      if (a === 0) return 0;
      const [lo, hi] = bounds(c);
      return -clip(ratioAt(s, t), lo, hi) * (s.targetLogprobs[t] as number) * a;
    }),
  grad: (c, s, coef) =>
    perPosition(s, (t) => {
      const a = s.advantages[t] as number;
      if (a === 0 || coef[t] === 0) return 0;
      const [lo, hi] = bounds(c);
      return -clip(ratioAt(s, t), lo, hi) * a * (coef[t] as number);
    }),
  clipped: (c, s) =>
    perPosition(s, (t) => {
      if ((s.advantages[t] as number) === 0) return false;
      const [lo, hi] = bounds(c);
      const r = ratioAt(s, t);
      return r < lo || r > hi;
    }),
  native: {
    lossFn: 'cispo',
    bounds,
    scales: 'advantages',
    nonNegativeScale: false,
  },
  schema,
};

export { schema as cispoSchema };
