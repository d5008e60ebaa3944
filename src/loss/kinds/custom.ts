import { z } from '../../util/zod.js';
import { DatumShapeError } from '../../errors/index.js';
import type { CustomLoss, LossConfig, LossSequence } from '../../types/loss-config.js';
import { perPosition, type LossDefinition } from '../loss-definition.js';
import { aggregationSchema } from './number-schemas.js';

type Custom = Extract<LossConfig, { kind: 'custom' }>;

const isCustomLoss = (x: unknown): x is CustomLoss => {
  const l = x as Partial<CustomLoss> | null;
  return (
    typeof l === 'object' &&
    l !== null &&
    typeof l.name === 'string' &&
    l.name.length > 0 &&
    (l.level === 'token' || l.level === 'sequence') &&
    typeof l.perToken === 'function' &&
    (l.grad === undefined || typeof l.grad === 'function') &&
    (l.clipped === undefined || typeof l.clipped === 'function') &&
    (l.level === 'token' || typeof l.grad === 'function')
  );
};

const schema = z.strictObject({
  kind: z.literal('custom'),
  loss: z.custom<CustomLoss>(isCustomLoss, {
    error: "expected a loss made with defineLoss({ name, level, perToken, grad? }) (a 'sequence' loss needs grad)",
  }),
  aggregation: aggregationSchema.optional(),
});

/** Step of the central difference that stands in for a `'token'` loss's missing `grad`. */
export const CUSTOM_LOSS_FD_STEP = 1e-4;

function checked(name: string, what: string, xs: readonly number[], T: number): number[] {
  if (xs.length !== T) throw new DatumShapeError(`loss.${what}`, `custom loss '${name}' returned ${xs.length} values for ${T} tokens`);
  if (!xs.every(Number.isFinite)) throw new DatumShapeError(`loss.${what}`, `custom loss '${name}' returned a non-finite value`);
  return Array.from(xs);
}

const shifted = (s: LossSequence, h: number): LossSequence => ({ ...s, targetLogprobs: s.targetLogprobs.map((x) => x + h) });

/**
 * `custom`: a loss written by the user on per-token logprobs ({@link CustomLoss}). Its per-token values and
 * gradient come from the user's functions; a `'token'` loss without `grad` gets
 * `coef_t·(ℓ_t(lp + h) − ℓ_t(lp − h)) / 2h` with `h = 1e-4` (valid because ℓ_t depends on lp_t only).
 */
export const customLoss: LossDefinition<Custom> = {
  kind: 'custom',
  needs: ['samplingLogprobs', 'advantages'],
  rl: true,
  optionKeys: ['loss', 'aggregation'],
  describe: (c) => `custom '${c.loss.name}' (${c.loss.level}), ${c.aggregation ?? 'token-mean'}`,
  perToken: (c, s) => checked(c.loss.name, 'perToken', c.loss.perToken(s), s.targetLogprobs.length),
  grad: (c, s, coef) => {
    const T = s.targetLogprobs.length;
    if (c.loss.grad) return checked(c.loss.name, 'grad', c.loss.grad(s, coef), T);
    const h = CUSTOM_LOSS_FD_STEP;
    const up = checked(c.loss.name, 'perToken', c.loss.perToken(shifted(s, h)), T);
    const down = checked(c.loss.name, 'perToken', c.loss.perToken(shifted(s, -h)), T);
    return perPosition(s, (t) => (coef[t] === 0 ? 0 : ((coef[t] as number) * ((up[t] as number) - (down[t] as number))) / (2 * h)));
  },
  clipped: (c, s) => {
    const out = c.loss.clipped?.(s);
    return out === undefined ? perPosition(s, () => false) : perPosition(s, (t) => out[t] === true);
  },
  schema,
};

export { schema as customSchema };

/**
 * Makes a user-defined loss for `loss: { kind: 'custom', loss: defineLoss({ … }) }`. Identity at runtime; it exists
 * so TypeScript checks the shape. The loss runs on every backend as a custom loss: the learner's logprobs come from a
 * forward pass, then a cross-entropy backward with per-token weights `−grad` gives exactly this loss's gradient
 * (tinker-cookbook's `forward_backward_custom` pattern).
 * @example
 * ```ts
 * // REINFORCE with a truncated importance weight: ℓ_t = −min(r_t, 2)·A_t (r = exp(lp − sampling)).
 * const tisReinforce = defineLoss({
 *   name: 'tis-reinforce', level: 'token',
 *   perToken: (s) => s.targetLogprobs.map((lp, t) => -Math.min(Math.exp(lp - s.samplingLogprobs[t]!), 2) * s.advantages[t]!),
 * });
 * ```
 */
export function defineLoss(loss: CustomLoss): CustomLoss {
  return loss;
}
