import { describe, expect, it } from 'vitest';
import { DatumShapeError } from '../../src/errors/index.js';
import { referenceLoss, supervisedDatum, validateDatum } from '../../src/loss/index.js';

describe('supervisedDatum', () => {
  it('right-shifts tokens and uses the mask as cross-entropy weights', () => {
    const d = supervisedDatum({ tokens: [10, 11, 12, 13, 14], mask: [0, 0, 1, 1, 0] });
    expect(d).toEqual({
      modelInput: [10, 11, 12, 13],
      targetTokens: [11, 12, 13, 14],
      logprobs: [0, 0, 0, 0],
      advantages: [0, 0, 0, 0],
      mask: [0, 1, 1, 0],
      weights: [0, 1, 1, 0],
    });
    validateDatum(d);
  });

  it('trains only on masked targets: the cross-entropy reference loss is their mean NLL', () => {
    // Hazard: prompt tokens leaking into the SFT loss.
    const d = supervisedDatum({ tokens: [1, 2, 3, 4], mask: [0, 0, 1, 1] });
    const r = referenceLoss([d], [[-9, -1, -3]], { kind: 'cross_entropy' });
    expect(r.loss).toBeCloseTo(2, 12);
    expect(r.tokens).toBe(2);
  });

  it('truncates every array together and rejects malformed input', () => {
    const d = supervisedDatum({ tokens: [1, 2, 3, 4], mask: [0, 1, 1, 1], maxTokens: 2 });
    expect(d.modelInput).toEqual([1, 2]);
    expect(d.weights).toEqual([1, 1]);
    expect(() => supervisedDatum({ tokens: [1], mask: [1] })).toThrow(DatumShapeError);
    expect(() => supervisedDatum({ tokens: [1, 2], mask: [1] })).toThrow(DatumShapeError);
    expect(() => supervisedDatum({ tokens: [1, 2], mask: [1, -1] })).toThrow(DatumShapeError);
  });
});
