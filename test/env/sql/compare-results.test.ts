import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasOrderBy, resultsMatch } from '../../../src/env/sql/index.js';

describe('resultsMatch (Spider test-suite rules by default)', () => {
  it('compares bags: row order ignored, duplicates counted', () => {
    expect(resultsMatch([[1], [2]], [[2], [1]])).toBe(true);
    expect(resultsMatch([[1], [1], [2]], [[1], [2], [2]])).toBe(false);
    expect(resultsMatch([[1], [1]], [[1]])).toBe(false);
  });

  it('respects row order only when asked (gold ORDER BY)', () => {
    expect(resultsMatch([[1], [2]], [[2], [1]], { orderMatters: true })).toBe(false);
    expect(resultsMatch([[1], [2]], [[1], [2]], { orderMatters: true })).toBe(true);
    expect(hasOrderBy('select a from t ORDER  BY a')).toBe(true);
    expect(hasOrderBy('select border_by from t')).toBe(false);
  });

  it('allows a column permutation in spider mode only', () => {
    const gold = [
      ['France', 'Paris'],
      ['Peru', 'Lima'],
    ];
    const pred = [
      ['Lima', 'Peru'],
      ['Paris', 'France'],
    ];
    expect(resultsMatch(gold, pred)).toBe(true);
    expect(resultsMatch(gold, pred, { mode: 'bag' })).toBe(false);
    expect(
      resultsMatch(gold, [
        ['Paris', 'Peru'],
        ['Lima', 'France'],
      ]),
    ).toBe(false); // a mapping must hold for every row
    expect(resultsMatch(gold, [['France']])).toBe(false);
  });

  it('set mode ignores duplicates (BIRD / SkyRL-SQL)', () => {
    expect(resultsMatch([[1], [1], [2]], [[2], [1]], { mode: 'set' })).toBe(true);
  });

  it('rounds numbers to floatDecimals (6 by default), exact with null; 1 equals 1.0; types stay distinct', () => {
    expect(resultsMatch([[12.333333333333334]], [[12.333333333333332]])).toBe(true);
    expect(resultsMatch([[12.333333333333334]], [[12.333333333333332]], { floatDecimals: null })).toBe(false);
    expect(resultsMatch([[0.1]], [[0.2]])).toBe(false);
    expect(resultsMatch([[1]], [[1.0]], { floatDecimals: null })).toBe(true);
    expect(resultsMatch([['1']], [[1]])).toBe(false);
    expect(resultsMatch([[null]], [['NULL']])).toBe(false);
  });

  it('treats two empty results as equal', () => {
    expect(resultsMatch([], [])).toBe(true);
    expect(resultsMatch([], [[1]])).toBe(false);
  });

  it('matches any row shuffle and column permutation of the same table (property)', () => {
    const table = fc.integer({ min: 1, max: 4 }).chain((w) =>
      fc.array(fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'b'), fc.constant(null)), { minLength: w, maxLength: w }), {
        minLength: 1,
        maxLength: 8,
      }),
    );
    fc.assert(
      fc.property(table, fc.integer(), (rows, seed) => {
        const w = rows[0]!.length;
        const perm = [...Array(w).keys()].sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
        const pred = [...rows].reverse().map((r) => perm.map((j) => r[j]));
        expect(resultsMatch(rows, pred)).toBe(true);
      }),
    );
  });
});
