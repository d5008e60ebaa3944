import type { z } from 'zod';
import type * as w from '../../../apps/serve/tinker/request-schemas.js';

/** A `forward_backward_input` as agentrl serve's routes hand it to the service. */
export type WireInput = z.infer<typeof w.forwardInputSchema>;
/** One wire datum. */
export type WireDatum = WireInput['data'][number];

const tensor = (xs: readonly number[]) => ({ data: [...xs], dtype: 'float32' as const, shape: [xs.length] });

/** The datum's `weights`, or ones over its whole length (prompt included) when it sends none. */
export function weightsOrOnes(d: WireDatum): number[] {
  const given = d.loss_fn_inputs['weights']?.data;
  if (given !== undefined) return [...given];
  const T = d.loss_fn_inputs['target_tokens']?.data.length ?? 0;
  return new Array<number>(T).fill(1);
}

/**
 * The datum as the inner engine (agentrl serve, token-sum) must see it so that its loss is `Σ_t weights_t · ℓ_t`:
 * cross-entropy takes `weights` as they are; an RL loss (which agentrl serve masks but does not weight) gets them
 * folded into its advantages — exact for `weights ≥ 0` (ppo's min commutes with a positive scale; is and cispo are
 * linear in A).
 */
export function weightedDatum(d: WireDatum, lossFn: string, weights: readonly number[]): WireDatum {
  const target = d.loss_fn_inputs['target_tokens']!;
  if (lossFn === 'cross_entropy') return { ...d, loss_fn_inputs: { target_tokens: target, weights: tensor(weights) } };
  const adv = d.loss_fn_inputs['advantages']?.data ?? [];
  const lp = d.loss_fn_inputs['logprobs']?.data ?? new Array<number>(target.data.length).fill(0);
  return {
    ...d,
    loss_fn_inputs: { target_tokens: target, logprobs: tensor(lp), advantages: tensor(weights.map((x, t) => x * (adv[t] ?? 0))) },
  };
}
