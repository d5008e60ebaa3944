import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, DatumShapeError } from '../../src/errors/index.js';
import { groupAdvantages, isDegenerateGroup } from '../../src/loss/index.js';

const reward = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true });

describe('groupAdvantages', () => {
  it('centres the seed group [+1, −1, −1, −1] to [1.5, −0.5, −0.5, −0.5]', () => {
    // Hazard: the worked example of the ReTool recipe (KMnO4-zx/agentic-rl-lab `05-retool/rollout.py` `assign_group_advantages`) must hold exactly.
    expect(groupAdvantages([1, -1, -1, -1])).toEqual([1.5, -0.5, -0.5, -0.5]);
  });

  it('std-normalises with the population std plus eps', () => {
    // R = [1, -1] → centred [1, -1], std 1 → [1/(1+eps), -1/(1+eps)].
    const a = groupAdvantages([1, -1], { normalize: 'std', eps: 1e-6 });
    expect(a[0]).toBeCloseTo(1 / (1 + 1e-6), 12);
    expect(a[1]).toBeCloseTo(-1 / (1 + 1e-6), 12);
  });

  it('uses the leave-one-out baseline for rloo', () => {
    // R = [1, -1, -1, -1]: A_0 = 1 − mean(-1,-1,-1) = 2; A_1 = −1 − mean(1,-1,-1) = −2/3.
    const a = groupAdvantages([1, -1, -1, -1], { normalize: 'rloo' });
    expect(a[0]).toBeCloseTo(2, 12);
    for (const x of a.slice(1)) expect(x).toBeCloseTo(-2 / 3, 12);
  });

  it('gives zeros for degenerate groups in every mode, including a group of one', () => {
    // Hazard: all-equal rewards must carry no gradient (no NaN from 0/0 in std or rloo).
    for (const normalize of ['none', 'std', 'rloo'] as const) {
      expect(groupAdvantages([-1, -1, -1], { normalize })).toEqual([0, 0, 0]);
      expect(groupAdvantages([3], { normalize })).toEqual([0]);
      expect(groupAdvantages([], { normalize })).toEqual([]);
    }
  });

  it('centred advantages sum to zero and rloo matches its definition (property)', () => {
    fc.assert(
      fc.property(fc.array(reward, { minLength: 2, maxLength: 16 }), (rewards_G) => {
        const a = groupAdvantages(rewards_G);
        expect(Math.abs(a.reduce((s, x) => s + x, 0))).toBeLessThan(1e-9);
        const loo = groupAdvantages(rewards_G, { normalize: 'rloo' });
        rewards_G.forEach((r, i) => {
          const others = rewards_G.filter((_, j) => j !== i);
          const expected = isDegenerateGroup(rewards_G) ? 0 : r - others.reduce((s, x) => s + x, 0) / others.length;
          expect(loo[i]).toBeCloseTo(expected, 9);
        });
      }),
    );
  });

  it('rejects non-finite rewards and bad options', () => {
    expect(() => groupAdvantages([1, Number.NaN])).toThrow(DatumShapeError);
    expect(() => groupAdvantages([1, 2], { eps: 0 })).toThrow(ConfigError);
    expect(() => groupAdvantages([1, 2], { normalize: 'zscore' as never })).toThrow(ConfigError);
  });
});

describe('isDegenerateGroup', () => {
  it('is true exactly when all rewards are equal', () => {
    expect(isDegenerateGroup([1, 1, 1])).toBe(true);
    expect(isDegenerateGroup([1])).toBe(true);
    expect(isDegenerateGroup([])).toBe(true);
    expect(isDegenerateGroup([1, -1, 1])).toBe(false);
  });
});
