import type { Datum } from '../../types/datum.js';
import type { LossConfig } from '../../types/loss-config.js';
import { BackendRequestError } from '../../errors/index.js';
import { backendLossMetrics, perTokenLoss } from '../../loss/index.js';
import type { ForwardBackwardResult } from '../types.js';
import type { TinkerLossPlan } from './loss-mapping.js';
import type { ForwardBackwardOutput } from './json-wire.js';

/**
 * Joins the chunk results of one `forwardBackward` call into the result `localBackend` gives for the same call:
 * logprobs concatenated in datum order; `loss` = Σ of the chunks' `loss:sum` ÷ `weight` (when a server reports no
 * `loss:sum`, the same sum is computed here from the returned logprobs and the wire inputs); `clip_frac`,
 * `kl_sample_train` (mean of `logp_sample − logp_θ`, RL losses only) and `tokens` over masked positions.
 * @throws BackendRequestError when a datum's logprobs do not match its length.
 */
export function mergeForwardBackward(args: {
  readonly datums: readonly Datum[];
  readonly loss: LossConfig;
  readonly weight: number;
  readonly plan: TinkerLossPlan;
  readonly results: readonly ForwardBackwardOutput[];
}): ForwardBackwardResult {
  const { datums, loss, weight, plan, results } = args;
  const logprobs = results.flatMap((r) => r.logprobs);
  datums.forEach((d, i) => {
    const n = logprobs[i]?.length;
    if (n !== d.modelInput.length)
      throw new BackendRequestError('forward_backward', 'unknown', `datum ${i}: ${n ?? 'no'} logprobs for ${d.modelInput.length} tokens`);
  });
  let summed = 0;
  if (results.every((r) => typeof r.metrics['loss:sum'] === 'number')) {
    for (const r of results) summed += r.metrics['loss:sum']!;
  } else {
    plan.datums.forEach((d, i) => {
      const per = perTokenLoss(loss, {
        targetLogprobs: logprobs[i]!,
        ...(d.inputs['weights'] ? { weights: d.inputs['weights'].data } : {}),
        ...(d.inputs['advantages'] ? { advantages: d.inputs['advantages'].data, samplingLogprobs: d.inputs['logprobs']!.data } : {}),
      });
      for (const x of per) summed += x;
    });
  }
  return { logprobs, metrics: { loss: weight !== 0 ? summed / weight : 0, ...backendLossMetrics(loss, datums, logprobs) } };
}
