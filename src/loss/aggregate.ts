import { ConfigError, DatumShapeError } from '../errors/index.js';
import type { Aggregation } from '../types/loss-config.js';

/** Aggregation used when a `LossConfig` leaves `aggregation` unset. */
export const DEFAULT_AGGREGATION: Aggregation = 'token-mean';

/**
 * Reduces per-token losses of a batch to one scalar, counting only masked positions (`mask = 1`). Masks are 0
 * or 1 (DESIGN's invariant, checked by `validateDatum` at every backend's `forwardBackward`); per-token weights
 * belong in a datum's `weights` (`cross_entropy`), not in its mask. The formulas below multiply by `m` only to
 * select positions:
 * - `token-mean` (default): `Σ_{d,t} m·ℓ / Σ_{d,t} m` over the whole batch — every token weighs the same (DAPO).
 * - `sequence-mean`: per sequence `Σ_t m·ℓ / Σ_t m`, then the plain mean over sequences that have at least one
 *   masked token — every sequence weighs the same (GRPO paper). Sequences without masked tokens are left out.
 * - `token-sum`: `Σ_{d,t} m·ℓ` (Tinker's built-in reduction).
 * An empty selection (no masked token) gives 0.
 * @param perToken_D_T - per datum, per-token losses.
 * @param mask_D_T - per datum, mask values; same shape as `perToken_D_T`.
 * @param aggregation - see above. @default 'token-mean'
 * @throws DatumShapeError (`mask`) when the shapes differ; ConfigError on an unknown aggregation.
 */
export function aggregateLoss(
  perToken_D_T: readonly (readonly number[])[],
  mask_D_T: readonly (readonly number[])[],
  aggregation: Aggregation = DEFAULT_AGGREGATION,
): number {
  if (mask_D_T.length !== perToken_D_T.length) {
    throw new DatumShapeError('mask', `${mask_D_T.length} mask rows for ${perToken_D_T.length} sequences`);
  }
  let sum = 0;
  let weight = 0;
  let seqSum = 0;
  let seqCount = 0;
  perToken_D_T.forEach((losses_T, d) => {
    const m_T = mask_D_T[d] as readonly number[];
    if (m_T.length !== losses_T.length) {
      throw new DatumShapeError('mask', `sequence ${d}: mask length ${m_T.length} differs from ${losses_T.length}`);
    }
    let s = 0;
    let w = 0;
    losses_T.forEach((l, t) => {
      const m = m_T[t] as number;
      if (m !== 0) {
        s += m * l;
        w += m;
      }
    });
    sum += s;
    weight += w;
    if (w > 0) {
      seqSum += s / w;
      seqCount += 1;
    }
  });
  switch (aggregation) {
    case 'token-mean':
      return weight > 0 ? sum / weight : 0;
    case 'sequence-mean':
      return seqCount > 0 ? seqSum / seqCount : 0;
    case 'token-sum':
      return sum;
    default: {
      const unknown: never = aggregation;
      throw new ConfigError('aggregateLoss arguments', [
        { path: 'aggregation', message: `expected 'token-mean' | 'sequence-mean' | 'token-sum', got ${JSON.stringify(unknown)}` },
      ]);
    }
  }
}
