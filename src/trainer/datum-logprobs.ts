import type { SamplingClient, TrainingBackend } from '../backend/types.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { Datum } from '../types/datum.js';

/** A sampling client's logprob of each datum's targets (`computeLogprobs` of `modelInput ++ [last target]`, entries 1…T). */
export async function clientLogprobs(client: Pick<SamplingClient, 'computeLogprobs'>, datums_D: readonly Datum[]): Promise<number[][]> {
  return Promise.all(
    datums_D.map(async (d) => {
      const lp = await client.computeLogprobs([...d.modelInput, d.targetTokens[d.targetTokens.length - 1]!]);
      return lp.slice(1).map((x) => x ?? 0);
    }),
  );
}

/**
 * The learner's logprobs of the datums under the current weights and the sampler's distribution, via a
 * `forwardBackward` with weight 0 (no gradient contribution; every backend has it). Costs one forward+backward.
 */
export async function learnerLogprobs(
  backend: TrainingBackend,
  datums_D: readonly Datum[],
  sampling: SamplingSettings | undefined,
  maxDatums: number,
): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < datums_D.length; i += maxDatums) {
    const chunk = datums_D.slice(i, i + maxDatums);
    const r = await backend.forwardBackward(chunk, { kind: 'cross_entropy', aggregation: 'token-sum' }, { weight: 0, ...(sampling ? { sampling } : {}) });
    out.push(...r.logprobs);
  }
  return out;
}
