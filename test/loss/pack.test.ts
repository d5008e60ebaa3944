import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import {
  microBatchWeight,
  packMicroBatches,
  referenceLoss,
  weightedMicroBatchMean,
  weightMicroBatchForGlobalMean,
} from '../../src/loss/index.js';
import type { Datum } from '../../src/types/index.js';

const ofLength = (n: number) => ({ modelInput: new Array<number>(n).fill(1) });

describe('packMicroBatches', () => {
  it('keeps every datum exactly once and respects both limits (property)', () => {
    // Hazard: a packer that drops or duplicates datums silently changes the gradient.
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        fc.constantFrom('padded' as const, 'sum' as const),
        (lengths, maxTokensPerBatch, maxDatumsPerBatch, budget) => {
          const datums = lengths.map(ofLength);
          const batches = packMicroBatches(datums, { maxTokensPerBatch, maxDatumsPerBatch, budget });
          const seen = batches.flatMap((b) => [...b.indices]).sort((a, b) => a - b);
          expect(seen).toEqual(lengths.map((_, i) => i));
          for (const b of batches) {
            b.indices.forEach((i, j) => expect(b.datums[j]).toBe(datums[i]));
            const lens = b.indices.map((i) => lengths[i]!);
            const cost = budget === 'padded' ? Math.max(...lens) * lens.length : lens.reduce((s, x) => s + x, 0);
            expect(b.tokens).toBe(cost);
            if (b.indices.length > 1) expect(cost).toBeLessThanOrEqual(maxTokensPerBatch);
            if (maxDatumsPerBatch !== undefined) expect(b.indices.length).toBeLessThanOrEqual(maxDatumsPerBatch);
          }
        },
      ),
    );
  });

  it('packs longest first and gives an oversize datum its own micro-batch', () => {
    const batches = packMicroBatches([3, 10, 4, 3, 50].map(ofLength), { maxTokensPerBatch: 20 });
    expect(batches.map((b) => b.indices)).toEqual([[4], [1, 2], [0, 3]]); // padded: 2×10 = 20 fits
    expect(batches.map((b) => b.tokens)).toEqual([50, 20, 6]);
  });

  it('rejects bad limits with ConfigError', () => {
    expect(() => packMicroBatches([], { maxTokensPerBatch: 0 })).toThrow(ConfigError);
    expect(() => packMicroBatches([], { maxTokensPerBatch: 10, maxDatumsPerBatch: 1.5 })).toThrow(ConfigError);
  });
});

describe('micro-batch weighting (n_k / N)', () => {
  it('weighted micro-batch means equal the global mean for uneven batch sizes', () => {
    // Hazard: averaging per request then summing over-weights small micro-batches (seed §8.4.7).
    const losses_K = [[1, 2, 3], [10], [4, 5]];
    const global = [1, 2, 3, 10, 4, 5].reduce((s, x) => s + x, 0) / 6;
    expect(weightedMicroBatchMean(losses_K)).toBeCloseTo(global, 12);
    // The naive sum of means is wrong: 2 + 10 + 4.5.
    expect(losses_K.map((l) => l.reduce((s, x) => s + x, 0) / l.length).reduce((s, x) => s + x, 0)).not.toBeCloseTo(global, 3);
    expect(microBatchWeight(3, 6)).toBe(0.5);
    expect(() => microBatchWeight(7, 6)).toThrow(ConfigError);
  });

  it('holds for any split of any losses (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { maxLength: 7 }), { maxLength: 6 }), (losses_K) => {
        const flat = losses_K.flat();
        const global = flat.length === 0 ? 0 : flat.reduce((s, x) => s + x, 0) / flat.length;
        expect(weightedMicroBatchMean(losses_K)).toBeCloseTo(global, 6);
      }),
    );
  });

  it('scaling advantages by n_k/N makes per-request PPO means sum to the global mean (property)', () => {
    // Hazard: PPO clipping is not linear in A; the weighting is only valid because n_k/N > 0 keeps A's sign.
    const datumArb = fc.integer({ min: 1, max: 6 }).chain((T) =>
      fc.record({
        lp: fc.array(fc.double({ min: -3, max: -0.01, noNaN: true }), { minLength: T, maxLength: T }),
        sampling: fc.array(fc.double({ min: -3, max: -0.01, noNaN: true }), { minLength: T, maxLength: T }),
        A: fc.double({ min: -2, max: 2, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(fc.array(datumArb, { minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 4 }), (rows, maxDatumsPerBatch) => {
        const datums: Datum[] = rows.map((r) => ({
          modelInput: r.lp.map(() => 1),
          targetTokens: r.lp.map(() => 1),
          logprobs: r.sampling,
          advantages: r.lp.map(() => r.A),
          mask: r.lp.map(() => 1),
        }));
        const lpOf = new Map(datums.map((d, i) => [d, rows[i]!.lp] as const));
        const config = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'sequence-mean' } as const;
        const global = referenceLoss(datums, rows.map((r) => r.lp), config).loss;
        const batches = packMicroBatches(datums, { maxTokensPerBatch: 10_000, maxDatumsPerBatch });
        const summed = batches.reduce((acc, b) => {
          const scaled = weightMicroBatchForGlobalMean(b.datums, datums.length);
          return acc + referenceLoss(scaled, b.datums.map((d) => lpOf.get(d)!), config).loss;
        }, 0);
        expect(summed).toBeCloseTo(global, 9);
      }),
    );
  });
});
