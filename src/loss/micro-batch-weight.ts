import type { Datum } from '../types/datum.js';
import type { LossConfig } from '../types/loss-config.js';
import { microBatchWeight } from './pack.js';

/** Masked (sampled) tokens of `datums_D`: the tokens a `token-mean` loss averages over. */
export function maskedTokens(datums_D: readonly Pick<Datum, 'mask'>[]): number {
  let n = 0;
  for (const d of datums_D) for (const m of d.mask) n += m;
  return n;
}

/** Datums with at least one masked token: the sequences a `sequence-mean` loss averages over. */
export function activeDatums(datums_D: readonly Pick<Datum, 'mask'>[]): number {
  let n = 0;
  for (const d of datums_D) if (d.mask.some((m) => m !== 0)) n++;
  return n;
}

/**
 * Weight of one micro-batch so that accumulating per-call losses reproduces the loss of the whole
 * batch under `aggregation` (the n_k / N of KMnO4-zx/agentic-rl-lab `05-retool/train.py`
 * `weight_micro_batch_for_global_mean`, generalised): `token-mean` → masked tokens_k / tokens_total,
 * `sequence-mean` → n_k / N (= {@link microBatchWeight}) counting only datums with at least one masked token (a
 * backend's sequence mean leaves the others out, so counting them would make the gradient depend on how datums were
 * split), `token-sum` → 1. Pure.
 * @param batch_D - the micro-batch.
 * @param all - the whole step: `datums` with at least one masked token ({@link activeDatums}) and masked tokens.
 */
export function microBatchLossWeight(
  aggregation: LossConfig['aggregation'],
  batch_D: readonly Pick<Datum, 'mask'>[],
  all: { readonly datums: number; readonly tokens: number },
): number {
  switch (aggregation ?? 'token-mean') {
    case 'token-sum':
      return 1;
    case 'sequence-mean':
      return microBatchWeight(activeDatums(batch_D), all.datums);
    case 'token-mean':
      return maskedTokens(batch_D) / Math.max(1, all.tokens);
  }
}
