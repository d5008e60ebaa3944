import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { microBatchWeight, packMicroBatches } from '../../src/loss/index.js';

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
            b.indices.forEach((i, j) => {
              expect(b.datums[j]).toBe(datums[i]);
            });
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

describe('microBatchWeight (n_k / N)', () => {
  it("is the share of the step's samples in micro-batch k, and refuses out-of-range counts", () => {
    // Hazard: averaging per request then summing over-weights small micro-batches (agentic-rl-lab 05-retool/train.py).
    expect(microBatchWeight(3, 6)).toBe(0.5);
    expect(microBatchWeight(0, 6)).toBe(0);
    expect(() => microBatchWeight(7, 6)).toThrow(ConfigError);
    expect(() => microBatchWeight(1, 0)).toThrow(ConfigError);
  });
});
