import { describe, expect, it } from 'vitest';
import { passAtK, passAtKMetrics } from '../../src/eval/index.js';
import { ConfigError } from '../../src/errors/index.js';

/** 1 − C(n−c, k)/C(n, k) with exact binomials (small n only). */
function byBinomials(n: number, c: number, k: number): number {
  const C = (a: number, b: number): number => (b < 0 || b > a ? 0 : b === 0 ? 1 : (C(a - 1, b - 1) * a) / b);
  return 1 - C(n - c, k) / C(n, k);
}

describe('unbiased pass@k (HumanEval estimator)', () => {
  it('matches hand values: n=4, c=1 → pass@1 = 1/4, pass@2 = 1/2, pass@4 = 1; c=0 → 0', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 15);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 15);
    expect(passAtK(4, 1, 4)).toBe(1);
    expect(passAtK(4, 0, 3)).toBe(0);
    // n=5, c=2, k=2: 1 − C(3,2)/C(5,2) = 1 − 3/10.
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 15);
  });

  it('equals the binomial formula for every n ≤ 10, c ≤ n, k ≤ n', () => {
    for (let n = 1; n <= 10; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) expect(passAtK(n, c, k)).toBeCloseTo(byBinomials(n, c, k), 12);
  });

  it('metrics: pass_at_1 is the mean correctness, pass_at_n the share of problems solved', () => {
    const m = passAtKMetrics(
      [
        [true, false, false, false],
        [false, false, false, false],
        [true, true, false, true],
      ],
      4,
    );
    expect(m['eval/pass_at_1']).toBeCloseTo((0.25 + 0 + 0.75) / 3, 12);
    expect(m['eval/pass_at_2']).toBeCloseTo((0.5 + 0 + 1) / 3, 12);
    expect(m['eval/pass_at_4']).toBeCloseTo(2 / 3, 12);
  });

  it('refuses impossible arguments', () => {
    expect(() => passAtK(3, 4, 1)).toThrow(ConfigError);
    expect(() => passAtK(3, 1, 4)).toThrow(ConfigError);
    expect(() => passAtK(3, 1, 0)).toThrow(ConfigError);
  });
});
