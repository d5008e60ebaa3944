import { describe, expect, it } from 'vitest';
import { microBatchLossWeight } from '../../src/trainer/train-on-datums.js';
import { aggregateLoss } from '../../src/loss/aggregate.js';
import type { Datum } from '../../src/types/datum.js';

const datum = (mask: number[], loss: number[]): Datum & { loss: number[] } => ({
  modelInput: mask.map(() => 1),
  targetTokens: mask.map(() => 1),
  logprobs: mask.map(() => 0),
  advantages: mask.map(() => 0),
  mask,
  loss,
});

/** What the whole step's loss is with micro-batch weights: Σ_k w_k · aggregate(batch_k), as a backend computes per call. */
function accumulated(split: (Datum & { loss: number[] })[][], agg: 'sequence-mean' | 'token-mean'): number {
  const all = split.flat();
  const totals = { datums: all.filter((d) => d.mask.some((m) => m !== 0)).length, tokens: all.reduce((s, d) => s + d.mask.reduce((a, b) => a + b, 0), 0) };
  return split.reduce(
    (acc, b) =>
      acc +
      microBatchLossWeight(agg, b, totals) *
        aggregateLoss(
          b.map((d) => d.loss),
          b.map((d) => d.mask),
          agg,
        ),
    0,
  );
}

describe('micro-batch loss weights', () => {
  // Hazard (issue 13 §5): a datum whose mask is all 0 counted in n_k / N made the gradient depend on the split.
  it('ignore all-zero-mask datums under sequence-mean, so any split gives the global loss', () => {
    const empty = datum([0, 0, 0], [9, 9, 9]);
    const a = datum([1, 1, 0], [1, 3, 0]);
    const b = datum([1, 0, 0], [5, 0, 0]);
    const c = datum([0, 1, 1], [0, 2, 4]);
    const global = aggregateLoss(
      [a, b, c, empty].map((d) => d.loss),
      [a, b, c, empty].map((d) => d.mask),
      'sequence-mean',
    );
    expect(global).toBeCloseTo((2 + 5 + 3) / 3, 12);
    for (const split of [
      [[a, b, c, empty]],
      [
        [a, empty],
        [b, c],
      ],
      [[empty], [a], [b, c]],
      [
        [a, b],
        [c, empty],
      ],
      [[empty, a, b], [c]],
    ]) {
      expect(accumulated(split, 'sequence-mean')).toBeCloseTo(global, 12);
      expect(accumulated(split, 'token-mean')).toBeCloseTo(
        aggregateLoss(
          [a, b, c, empty].map((d) => d.loss),
          [a, b, c, empty].map((d) => d.mask),
          'token-mean',
        ),
        12,
      );
    }
    expect(microBatchLossWeight('sequence-mean', [empty], { datums: 3, tokens: 5 })).toBe(0);
    expect(microBatchLossWeight('sequence-mean', [a, empty], { datums: 3, tokens: 5 })).toBeCloseTo(1 / 3, 12);
  });
});
