import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, DatumShapeError } from '../../src/errors/index.js';
import { isClipped, perTokenLoss } from '../../src/loss/index.js';
import { perTokenLossGrad } from './per-token-grad.js';
import type { LossConfig } from '../../src/types/index.js';

const ppo: LossConfig = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 };
/** Inputs for one token with ratio `r` and advantage `a` (sampling logprob −1). */
const one = (r: number, a: number) => ({ targetLogprobs: [-1 + Math.log(r)], samplingLogprobs: [-1], advantages: [a] });

describe('perTokenLoss', () => {
  it('ppo clips a ratio of 1.5 with A = +1 to 1.28 (loss −1.28)', () => {
    expect(perTokenLoss(ppo, one(1.5, 1))[0]).toBeCloseTo(-1.28, 12);
    expect(isClipped(ppo, 1.5, 1)).toBe(true);
  });

  it('ppo clips a ratio of 0.5 with A = −1 at 0.8 (loss 0.8)', () => {
    expect(perTokenLoss(ppo, one(0.5, -1))[0]).toBeCloseTo(0.8, 12);
    expect(isClipped(ppo, 0.5, -1)).toBe(true);
  });

  it('ppo does not clip in the direction that makes the update more pessimistic', () => {
    // r = 0.5, A = +1: min(0.5, 0.8) = 0.5 → loss −0.5, gradient flows. r = 1.5, A = −1: min(−1.5, −1.28) → 1.5.
    expect(perTokenLoss(ppo, one(0.5, 1))[0]).toBeCloseTo(-0.5, 12);
    expect(perTokenLoss(ppo, one(1.5, -1))[0]).toBeCloseTo(1.5, 12);
    expect(isClipped(ppo, 0.5, 1)).toBe(false);
    expect(isClipped(ppo, 1.5, -1)).toBe(false);
  });

  it('computes importance sampling, cispo and cross entropy by their formulas', () => {
    expect(perTokenLoss({ kind: 'importance_sampling' }, one(1.5, 2))[0]).toBeCloseTo(-3, 12);
    // cispo: −clip(r, 0, 4)·lp·A; r = 5 → 4; lp = −1 + ln 5.
    const lp = -1 + Math.log(5);
    expect(perTokenLoss({ kind: 'cispo', clipHigh: 4 }, one(5, 1))[0]).toBeCloseTo(-4 * lp, 12);
    expect(perTokenLoss({ kind: 'cispo', clipLow: 0.5, clipHigh: 4 }, one(0.25, -1))[0]).toBeCloseTo(0.5 * (-1 + Math.log(0.25)), 12);
    expect(perTokenLoss({ kind: 'cross_entropy' }, { targetLogprobs: [-2, -3], weights: [1, 0.5] })).toEqual([2, 1.5]);
  });

  it('gives exactly 0 where the advantage or weight is 0, even for extreme ratios', () => {
    // Hazard: observation positions (A = 0) with huge ratios must not produce NaN (∞·0).
    const inputs = { targetLogprobs: [0, 0], samplingLogprobs: [-1e6, -800], advantages: [0, 0] };
    for (const config of [ppo, { kind: 'importance_sampling' }, { kind: 'cispo', clipHigh: 4 }] as LossConfig[]) {
      expect(perTokenLoss(config, inputs)).toEqual([0, 0]);
      expect(perTokenLossGrad(config, inputs)).toEqual([0, 0]);
    }
  });

  it('names the missing or mis-sized input and rejects invalid configs', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const e1 = err(() => perTokenLoss(ppo, { targetLogprobs: [-1], samplingLogprobs: [-1] }));
    expect(e1).toBeInstanceOf(DatumShapeError);
    expect((e1 as DatumShapeError).field).toBe('advantages');
    const e2 = err(() => perTokenLoss(ppo, { targetLogprobs: [-1], samplingLogprobs: [-1, -2], advantages: [1] }));
    expect((e2 as DatumShapeError).field).toBe('samplingLogprobs');
    const e3 = err(() => perTokenLoss({ kind: 'cross_entropy' }, { targetLogprobs: [-1] }));
    expect((e3 as DatumShapeError).field).toBe('weights');
    expect(() => perTokenLoss({ kind: 'ppo', clipLow: 1.2, clipHigh: 0.8 }, one(1, 1))).toThrow(ConfigError);
  });
});

describe('perTokenLossGrad', () => {
  it('matches finite differences of perTokenLoss away from the clip boundaries (property)', () => {
    // Hazard: a custom-loss backend (weights = −∂ℓ/∂lp) training with the wrong gradient.
    const configs: LossConfig[] = [ppo, { kind: 'importance_sampling' }, { kind: 'cross_entropy' }];
    fc.assert(
      fc.property(
        fc.constantFrom(...configs),
        fc.double({ min: -0.6, max: 0.6, noNaN: true }),
        fc.double({ min: -2, max: 2, noNaN: true }),
        (config, logRatio, a) => {
          const r = Math.exp(logRatio);
          fc.pre(Math.abs(r - 0.8) > 1e-3 && Math.abs(r - 1.28) > 1e-3);
          const at = (lp: number) => ({ targetLogprobs: [lp], samplingLogprobs: [-1], advantages: [a], weights: [a] });
          const lp = -1 + logRatio;
          const h = 1e-6;
          const numeric = (perTokenLoss(config, at(lp + h))[0]! - perTokenLoss(config, at(lp - h))[0]!) / (2 * h);
          expect(perTokenLossGrad(config, at(lp))[0]).toBeCloseTo(numeric, 4);
        },
      ),
    );
  });

  it('treats the clipped cispo weight as a constant (stop-gradient)', () => {
    expect(perTokenLossGrad({ kind: 'cispo', clipHigh: 4 }, one(5, 2))[0]).toBeCloseTo(-8, 12);
    expect(perTokenLossGrad(ppo, one(1.5, 1))[0]).toBe(0);
  });
});
