import { describe, expect, it } from 'vitest';
import { DatumShapeError } from '../../src/errors/index.js';
import { validateDatum, validateDatums } from '../../src/loss/index.js';
import type { Datum } from '../../src/types/index.js';

const good: Datum = {
  modelInput: [1, 2, 3],
  targetTokens: [2, 3, 4],
  logprobs: [0, -0.5, -0.25],
  advantages: [0, 1, 1],
  mask: [0, 1, 1],
};

/** Returns the `field` of the DatumShapeError thrown by `f`, failing when nothing or something else is thrown. */
function thrownField(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof DatumShapeError) return e.field;
    throw e;
  }
  throw new Error('expected a DatumShapeError');
}

describe('validateDatum', () => {
  it('accepts a well-formed datum, with or without weights', () => {
    expect(() => validateDatum(good)).not.toThrow();
    expect(() => validateDatum({ ...good, weights: [0, 1, 0.5] })).not.toThrow();
  });

  it('names the field whose length differs from modelInput', () => {
    // Hazard: a backend would silently broadcast or truncate mis-sized arrays.
    expect(thrownField(() => validateDatum({ ...good, targetTokens: [2, 3] }))).toBe('targetTokens');
    expect(thrownField(() => validateDatum({ ...good, logprobs: [0, -1] }))).toBe('logprobs');
    expect(thrownField(() => validateDatum({ ...good, advantages: [0, 1, 1, 1] }))).toBe('advantages');
    expect(thrownField(() => validateDatum({ ...good, mask: [0, 1] }))).toBe('mask');
    expect(thrownField(() => validateDatum({ ...good, weights: [1] }))).toBe('weights');
  });

  it('rejects empty datums, non-finite values, bad token ids and non-binary masks', () => {
    expect(thrownField(() => validateDatum({ modelInput: [], targetTokens: [], logprobs: [], advantages: [], mask: [] }))).toBe('modelInput');
    expect(thrownField(() => validateDatum({ ...good, logprobs: [0, Number.NaN, -1] }))).toBe('logprobs');
    expect(thrownField(() => validateDatum({ ...good, advantages: [0, Infinity, 1] }))).toBe('advantages');
    expect(thrownField(() => validateDatum({ ...good, weights: [0, -1, 1] }))).toBe('weights');
    expect(thrownField(() => validateDatum({ ...good, targetTokens: [2, 3.5, 4] }))).toBe('targetTokens');
    expect(thrownField(() => validateDatum({ ...good, modelInput: [-1, 2, 3] }))).toBe('modelInput');
    expect(thrownField(() => validateDatum({ ...good, mask: [0, 2, 1] }))).toBe('mask');
  });

  it('rejects a non-zero advantage on a mask-0 position', () => {
    // Hazard: Tinker's RL losses have no mask; only advantage 0 keeps observation tokens out of the gradient.
    expect(thrownField(() => validateDatum({ ...good, advantages: [0.3, 1, 1] }))).toBe('advantages');
  });

  it('quotes the batch index and rejects empty batches', () => {
    expect(() => validateDatums([good, { ...good, mask: [0] }])).toThrow(/datum 1/);
    expect(thrownField(() => validateDatums([]))).toBe('datums');
  });
});
