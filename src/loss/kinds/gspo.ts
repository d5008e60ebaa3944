import { z } from '../../util/zod.js';
import type { LossConfig, LossSequence } from '../../types/loss-config.js';
import { clip, perPosition, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema, lowerRatioBound, upperRatioBound } from './number-schemas.js';

type Gspo = Extract<LossConfig, { kind: 'gspo' }>;

const schema = z.strictObject({
  kind: z.literal('gspo'),
  clipLow: lowerRatioBound(),
  clipHigh: upperRatioBound(),
  aggregation: aggregationSchema.optional(),
});

/** `s = exp(Σ_t m_t·(lp_t − sampling_t) / Σ_t m_t)` and `n = Σ_t m_t` (s = 1 when nothing is masked). */
function sequenceRatio(s: LossSequence): { ratio: number; n: number } {
  let n = 0;
  let sum = 0;
  s.mask.forEach((m, t) => {
    if (m === 0) return;
    n += m;
    sum += m * ((s.targetLogprobs[t] as number) - (s.samplingLogprobs[t] as number));
  });
  return { ratio: n > 0 ? Math.exp(sum / n) : 1, n };
}

const isClipped = (c: Gspo, ratio: number, a: number): boolean => (a > 0 && ratio > c.clipHigh) || (a < 0 && ratio < c.clipLow);

/**
 * `gspo` (GSPO, Zheng et al. 2025, "Group Sequence Policy Optimization"): one length-normalised ratio per sequence,
 * `s = exp(mean_t(lp_t − sampling_t))` over its masked tokens, clipped with its own (much tighter) absolute bounds —
 * the paper uses `{ clipLow: 1 − 3e-4, clipHigh: 1 + 4e-4 }`. Every token of the sequence carries
 * `ℓ_t = −min(s·A_t, clip(s, clipLow, clipHigh)·A_t)`, so `aggregation: 'sequence-mean'` is the paper's
 * `1/G Σ_i min(s_i·A_i, clip(s_i)·A_i)`. Gradient: `∂(Σ_u c_u ℓ_u)/∂lp_t = −(s·m_t/n)·Σ_{u unclipped} c_u·A_u`.
 * No backend has it built in: it runs as a custom loss everywhere.
 */
export const gspoLoss: LossDefinition<Gspo> = {
  kind: 'gspo',
  needs: ['samplingLogprobs', 'advantages', 'mask'],
  rl: true,
  optionKeys: ['clipLow', 'clipHigh', 'aggregation'],
  describe: (c) => `gspo sequence clip [${c.clipLow}, ${c.clipHigh}], ${c.aggregation ?? 'token-mean'}`,
  perToken: (c, s) => {
    const { ratio } = sequenceRatio(s);
    return perPosition(s, (t) => {
      const a = s.advantages[t] as number;
      return a === 0 ? 0 : -Math.min(ratio * a, clip(ratio, c.clipLow, c.clipHigh) * a);
    });
  },
  grad: (c, s, coef) => {
    const { ratio, n } = sequenceRatio(s);
    if (n === 0) return perPosition(s, () => 0);
    let active = 0;
    s.advantages.forEach((a, u) => {
      if (a !== 0 && coef[u] !== 0 && !isClipped(c, ratio, a)) active += (coef[u] as number) * a;
    });
    return perPosition(s, (t) => ((s.mask[t] as number) === 0 || active === 0 ? 0 : (-ratio * (s.mask[t] as number) * active) / n));
  },
  clipped: (c, s) => {
    const { ratio } = sequenceRatio(s);
    return perPosition(s, (t) => (s.advantages[t] as number) !== 0 && isClipped(c, ratio, s.advantages[t] as number));
  },
  schema,
};

export { schema as gspoSchema };
