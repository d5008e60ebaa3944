import { describe, expect, it } from 'vitest';
import { maskedTokens, microBatchLossWeight, packMicroBatches, type Datum } from 'agentrl/internal';

const datum = (n: number, sampled: number): Datum => ({
  modelInput: Array(n).fill(1),
  targetTokens: Array(n).fill(1),
  logprobs: Array(n).fill(0),
  advantages: Array(n).fill(1),
  mask: Array.from({ length: n }, (_, i) => (i >= n - sampled ? 1 : 0)),
});

describe('microBatchLossWeight', () => {
  const all_D = [datum(10, 3), datum(6, 6), datum(9, 1), datum(4, 2), datum(12, 12)];
  const batches = packMicroBatches(all_D, { maxTokensPerBatch: 20, maxDatumsPerBatch: 2 });
  const totals = { datums: all_D.length, tokens: maskedTokens(all_D) };

  it('weights sum to 1 for token-mean and sequence-mean over any packing, and are 1 each for token-sum', () => {
    // Hazard: micro-batches weighted equally, so a small last batch counts as much as a full one.
    expect(batches.length).toBeGreaterThan(1);
    for (const agg of ['token-mean', 'sequence-mean'] as const) {
      const sum = batches.reduce((s, b) => s + microBatchLossWeight(agg, b.datums, totals), 0);
      expect(sum).toBeCloseTo(1, 12);
    }
    expect(batches.map((b) => microBatchLossWeight('token-sum', b.datums, totals))).toEqual(batches.map(() => 1));
  });

  it('token-mean weighs a micro-batch by its sampled tokens, not its length', () => {
    expect(microBatchLossWeight('token-mean', [datum(10, 3)], { datums: 2, tokens: 4 })).toBe(3 / 4);
    expect(microBatchLossWeight(undefined, [datum(10, 1)], { datums: 2, tokens: 4 })).toBe(1 / 4);
  });
});
