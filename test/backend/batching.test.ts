import { describe, expect, it } from 'vitest';
import { aggregationCoefficients, batchBucket, MAX_ATTENTION_CELLS, planMicroBatches, seqBucket } from '../../src/backend/local/batching.js';
import { aggregateLoss } from '../../src/loss/index.js';
import type { Datum } from '../../src/types/datum.js';
import { cacheBucket } from '../../src/backend/local/decode-scheduler.js';

const datum = (mask: number[]): Datum => ({
  modelInput: mask.map(() => 1),
  targetTokens: mask.map(() => 2),
  logprobs: mask.map(() => 0),
  advantages: mask.map(() => 1),
  mask,
});

describe('batching', () => {
  it('buckets shapes so jit compiles a bounded number of kernels', () => {
    expect([1, 2, 3, 5, 16, 17, 33].map(batchBucket)).toEqual([1, 16, 16, 16, 16, 32, 48]);
    expect([1, 64, 65, 256, 257, 500, 600].map((n) => seqBucket(n, 512))).toEqual([256, 256, 256, 256, 512, 512, 512]);
    expect([1, 192, 193].map((n) => seqBucket(n, 384))).toEqual([192, 192, 384]);
  });

  it('sizes the decode KV cache in power-of-two buckets capped at the context', () => {
    // Hazard: attention over the full context for short sequences, or a kernel per length.
    expect([1, 64, 65, 129, 300, 511].map((n) => cacheBucket(n, 512))).toEqual([64, 64, 128, 256, 512, 512]);
    expect(cacheBucket(700, 640)).toBe(640);
  });

  it('keeps every micro-batch within the padded token budget', () => {
    // Hazard: one huge padded batch exhausting the 4 GB wasm heap.
    const lengths = [10, 300, 70, 500, 64, 65, 1, 200];
    const plans = planMicroBatches(lengths, 512, 1024);
    expect(plans.flatMap((p) => p.indices).sort()).toEqual(lengths.map((_, i) => i).sort());
    for (const p of plans) {
      expect(p.batch * p.seqLen <= 1024 || p.indices.length === 1).toBe(true);
      expect(Math.max(...p.indices.map((i) => lengths[i]!))).toBeLessThanOrEqual(p.seqLen);
    }
  });

  it('trains long sequences in smaller batches (attention memory grows with T²)', () => {
    // Hazard: B·H·T² attention intermediates overflowing the wasm heap at long contexts.
    const plans = planMicroBatches(Array(8).fill(2000), 2048, 1 << 20);
    for (const p of plans) expect(p.batch * p.seqLen * p.seqLen <= MAX_ATTENTION_CELLS || p.indices.length === 1).toBe(true);
    expect(plans.length).toBeGreaterThan(1);
  });

  it('coefficients reproduce aggregateLoss for every aggregation', () => {
    // Hazard: engine aggregation drifting from the reference semantics in src/loss.
    const ds = [datum([0, 1, 1, 0.5]), datum([0, 0, 0]), datum([1, 1, 0, 1, 1, 1])];
    const per = ds.map((d) => d.mask.map((_, t) => (t + 1) * 0.37));
    for (const aggregation of ['token-mean', 'sequence-mean', 'token-sum'] as const) {
      const c = aggregationCoefficients(ds, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation });
      const viaCoef = per.reduce((s, l, d) => s + l.reduce((a, x, t) => a + x * c[d]![t]!, 0), 0);
      expect(viaCoef).toBeCloseTo(
        aggregateLoss(
          per,
          ds.map((d) => d.mask),
          aggregation,
        ),
        6,
      );
    }
  });
});
