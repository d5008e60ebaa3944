import { describe, expect, it } from 'vitest';
import { ConfigError, DatumShapeError } from '../../src/errors/index.js';
import { aggregateLoss } from '../../src/loss/index.js';

describe('aggregateLoss', () => {
  const perToken = [
    [9, 1, 2, 3],
    [9, 10],
  ];
  const mask = [
    [0, 1, 1, 1],
    [0, 1],
  ];

  it('token-mean averages over all masked tokens of the batch (default)', () => {
    // (1 + 2 + 3 + 10) / 4; the unmasked 9s must not count.
    expect(aggregateLoss(perToken, mask)).toBeCloseTo(4, 12);
    expect(aggregateLoss(perToken, mask, 'token-mean')).toBeCloseTo(4, 12);
  });

  it('sequence-mean averages each sequence, then the sequences', () => {
    // mean(2, 10) = 6; a sequence with no masked token is left out.
    expect(aggregateLoss(perToken, mask, 'sequence-mean')).toBeCloseTo(6, 12);
    expect(aggregateLoss([...perToken, [5]], [...mask, [0]], 'sequence-mean')).toBeCloseTo(6, 12);
  });

  it('token-sum sums masked tokens', () => {
    expect(aggregateLoss(perToken, mask, 'token-sum')).toBeCloseTo(16, 12);
  });

  it('returns 0 when nothing is masked and rejects shape mismatches', () => {
    expect(aggregateLoss([[1, 2]], [[0, 0]])).toBe(0);
    expect(aggregateLoss([], [], 'sequence-mean')).toBe(0);
    expect(() => aggregateLoss(perToken, [mask[0]!])).toThrow(DatumShapeError);
    expect(() => aggregateLoss([[1]], [[1, 1]])).toThrow(DatumShapeError);
    expect(() => aggregateLoss([[1]], [[1]], 'mean' as never)).toThrow(ConfigError);
  });
});
