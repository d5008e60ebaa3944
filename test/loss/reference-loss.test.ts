import { describe, expect, it } from 'vitest';
import { DatumShapeError } from '../../src/errors/index.js';
import { buildDatum, referenceLoss } from '../../src/loss/index.js';
import type { Datum } from '../../src/types/index.js';

const ln = Math.log;

describe('referenceLoss', () => {
  // Two sampled tokens per datum after one prompt token; sampling logprobs −1.
  const datum = (A: number): Datum => ({
    modelInput: [1, 2, 3],
    targetTokens: [2, 3, 4],
    logprobs: [0, -1, -1],
    advantages: [0, A, A],
    mask: [0, 1, 1],
  });

  it('computes ppo loss, clip fraction, sample/train KL and token count by hand', () => {
    // Datum 0 (A=+1): ratios 1.5 (clipped → −1.28) and 1.0 (−1). Datum 1 (A=−1): ratios 0.5 (clipped → 0.8) and 1.0 (1).
    const lp = [
      [-7, -1 + ln(1.5), -1],
      [-7, -1 + ln(0.5), -1],
    ];
    const r = referenceLoss([datum(1), datum(-1)], lp, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
    expect(r.tokens).toBe(4);
    expect(r.loss).toBeCloseTo((-1.28 - 1 + 0.8 + 1) / 4, 12);
    expect(r.clipFrac).toBeCloseTo(2 / 4, 12);
    expect(r.klSampleTrain).toBeCloseTo((-ln(1.5) - ln(0.5)) / 4, 12);
  });

  it('honours the aggregation of the config', () => {
    const d0 = datum(1);
    const d1: Datum = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, -1], advantages: [0, 1], mask: [0, 1] };
    const lp = [
      [-5, -1, -1],
      [-5, -1],
    ];
    // r = 1 everywhere, IS loss −1 per masked token.
    expect(referenceLoss([d0, d1], lp, { kind: 'importance_sampling', aggregation: 'token-sum' }).loss).toBeCloseTo(-3, 12);
    expect(referenceLoss([d0, d1], lp, { kind: 'importance_sampling', aggregation: 'sequence-mean' }).loss).toBeCloseTo(-1, 12);
    expect(referenceLoss([d0, d1], lp, { kind: 'importance_sampling' }).loss).toBeCloseTo(-1, 12);
  });

  it('ignores observation positions built by buildDatum, whatever the learner logprob there', () => {
    // Hazard: interpreter output entering the policy loss.
    const d = buildDatum(
      {
        turns: [
          { promptTokens: [1, 2], completionTokens: [3], logprobs: [-1] },
          { promptTokens: [1, 2, 3, 8, 9], completionTokens: [4], logprobs: [-1] },
        ],
      },
      1,
    );
    const base = referenceLoss([d], [[-1, -1, -1, -1, -1]], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
    const noisy = referenceLoss([d], [[-30, -1, 0, -0.01, -1]], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
    expect(noisy).toEqual(base);
    expect(base.tokens).toBe(2);
  });

  it('rejects learner logprobs that do not match the datums', () => {
    expect(() => referenceLoss([datum(1)], [], { kind: 'importance_sampling' })).toThrow(DatumShapeError);
    expect(() => referenceLoss([datum(1)], [[-1]], { kind: 'importance_sampling' })).toThrow(DatumShapeError);
  });
});
