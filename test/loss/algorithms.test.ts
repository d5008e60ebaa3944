import { describe, expect, it } from 'vitest';
import { correctRollouts, klEstimate, klPenaltyInAdvantages, overlongPenalty, withKlLoss, perTokenLoss } from '../../src/loss/index.js';
import { perTokenLossGrad } from './per-token-grad.js';
import { scheduledLearningRate } from '../../src/trainer/lr-schedule.js';
import type { Datum } from '../../src/types/datum.js';
import { DatumShapeError } from '../../src/errors/index.js';

const datum = (logprobs: number[], advantages: number[], mask: number[]): Datum => ({
  modelInput: logprobs.map((_, t) => t + 1),
  targetTokens: logprobs.map((_, t) => t + 2),
  logprobs,
  advantages,
  mask,
});

describe('KL estimators and the KL penalty', () => {
  it('k1, k2, k3 by hand (lp = −1, ref = −2: x = ref − lp = −1)', () => {
    expect(klEstimate('k1', -1, -2)).toBe(1);
    expect(klEstimate('k2', -1, -2)).toBe(0.5);
    expect(klEstimate('k3', -1, -2)).toBeCloseTo(Math.exp(-1) - 1 + 1, 15);
    expect(klEstimate('k3', -1, -1)).toBe(0);
    // k3 ≥ 0 even where k1 is negative.
    expect(klEstimate('k1', -2, -1)).toBe(-1);
    expect(klEstimate('k3', -2, -1)).toBeCloseTo(Math.E - 2, 15);
  });

  it('folds −β·k into the advantages of masked tokens only, with mean/max metrics', () => {
    const d = datum([0, -1, -0.5], [0, 1, 1], [0, 1, 1]);
    const r = klPenaltyInAdvantages([d], [[-9, -2, -0.5]], 0.1, 'k1');
    expect(r.datums_D[0]!.advantages).toEqual([0, 1 - 0.1 * 1, 1]);
    expect(r.mean).toBe(0.5);
    expect(r.max).toBe(1);
    expect(() => klPenaltyInAdvantages([d], [[-1]], 0.1, 'k1')).toThrow(DatumShapeError);
  });

  it('placement loss: ℓ + β·k(lp_θ) with its gradient (k3: 1 − exp(ref − lp))', () => {
    const loss = withKlLoss({ kind: 'importance_sampling' }, 0.5, 'k3');
    const inputs = { targetLogprobs: [-1, -1], samplingLogprobs: [-1, -1], advantages: [2, 0], mask: [1, 1], referenceLogprobs: [-2, -1] };
    const l = perTokenLoss(loss, inputs);
    expect(l[0]).toBeCloseTo(-2 + 0.5 * (Math.exp(-1) - 1 + 1), 12);
    expect(l[1]).toBe(0);
    const g = perTokenLossGrad(loss, inputs);
    expect(g[0]).toBeCloseTo(-2 + 0.5 * (1 - Math.exp(-1)), 12);
    expect(g[1]).toBe(0);
    expect(() => perTokenLoss(loss, { ...inputs, referenceLogprobs: undefined })).toThrow(/referenceLogprobs/);
  });
});

describe('rollout correction', () => {
  it('token truncate: A·min(ρ, cap), logprobs replaced by the learner’s, metrics', () => {
    const d = datum([0, Math.log(0.5), Math.log(0.5)], [0, 1, -1], [0, 1, 1]);
    // learner: token 1 ρ = 0.8/0.5 = 1.6, token 2 ρ = 1.5/0.5 = 3 → capped at 2.
    const r = correctRollouts([d], [[5, Math.log(0.8), Math.log(1.5)]], { level: 'token', mode: 'truncate', cap: 2 });
    const out = r.datums_D[0]!;
    expect(out.advantages[0]).toBe(0);
    expect(out.advantages[1]).toBeCloseTo(1.6, 12);
    expect(out.advantages[2]).toBeCloseTo(-2, 12);
    expect(out.logprobs).toEqual([0, Math.log(0.8), Math.log(1.5)]);
    expect(r.metrics['rollout_corr/ratio_mean']).toBeCloseTo((1.6 + 3) / 2, 12);
    expect(r.metrics['rollout_corr/clipped_frac']).toBe(0.5);
    expect(r.metrics['rollout_corr/masked_frac']).toBe(0);
  });

  it('token mask drops ρ > cap and ρ < 1/cap; sequence level uses the product of the ratios', () => {
    const d = datum([Math.log(0.5), Math.log(0.5), Math.log(0.5)], [1, 1, 1], [1, 1, 1]);
    const lp = [[Math.log(0.6), Math.log(1.5), Math.log(0.2)]]; // ρ = 1.2, 3, 0.4
    const m = correctRollouts([d], lp, { level: 'token', mode: 'mask', cap: 2 }).datums_D[0]!;
    expect(m.mask).toEqual([1, 0, 0]);
    expect(m.advantages).toEqual([1, 0, 0]);
    const s = correctRollouts([d], lp, { level: 'sequence', mode: 'truncate', cap: 2 });
    // Π ρ = 1.2·3·0.4 = 1.44 on every token.
    s.datums_D[0]!.advantages.forEach((a) => {
      expect(a).toBeCloseTo(1.44, 12);
    });
    const sm = correctRollouts([d], [[Math.log(1.5), Math.log(1.5), Math.log(0.6)]], { level: 'sequence', mode: 'mask', cap: 2 });
    // Π ρ = 3·3·1.2 = 10.8 > 2: the whole sequence is masked.
    expect(sm.datums_D[0]!.mask).toEqual([0, 0, 0]);
    expect(sm.metrics['rollout_corr/masked_frac']).toBe(1);
  });

  /**
   * Tabular check of what the correction is for: a policy π over K tokens, samples drawn from a perturbed sampler μ.
   * The policy gradient of E_π[A] estimated from μ's samples through the library's datum pipeline (correction, then
   * the importance-sampling loss's per-token gradient at the learner's own logprobs) is compared with the exact one.
   */
  function policyGradientError(level: 'token' | 'sequence', corrected: boolean, seed: number): number {
    const K = 5;
    const theta = [0.3, -0.2, 1.1, 0.0, -0.7];
    const noise = [0.9, -0.6, -0.8, 0.5, 0.4];
    const softmax = (x: number[]) => {
      const m = Math.max(...x);
      const e = x.map((v) => Math.exp(v - m));
      const z = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / z);
    };
    const pi = softmax(theta);
    const mu = softmax(theta.map((v, k) => v + noise[k]!));
    const A = (ys: number[]) => (level === 'token' ? [1, -0.5, 0.8, -1, 0.2][ys[0]!]! : Math.sin(ys[0]! + 2 * ys[1]!));
    const L = level === 'token' ? 1 : 2;
    // Exact ∇_θ E_π[A] = Σ_y π(y)·A(y)·Σ_t (e_{y_t} − π).
    const exact = new Array<number>(K).fill(0);
    const all: number[][] = L === 1 ? [...Array(K).keys()].map((y) => [y]) : [...Array(K * K).keys()].map((i) => [Math.floor(i / K), i % K]);
    for (const ys of all) {
      const p = ys.reduce((acc, y) => acc * pi[y]!, 1);
      for (const y of ys) for (let k = 0; k < K; k++) exact[k]! += p * A(ys) * ((k === y ? 1 : 0) - pi[k]!);
    }
    let s = seed >>> 0;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
    const draw = () => {
      let u = rnd();
      for (let k = 0; k < K; k++) {
        u -= mu[k]!;
        if (u < 0) return k;
      }
      return K - 1;
    };
    const N = 20_000;
    const samples = Array.from({ length: N }, () => Array.from({ length: L }, draw));
    const datums = samples.map((ys) =>
      datum(
        ys.map((y) => Math.log(mu[y]!)),
        ys.map(() => A(ys)),
        ys.map(() => 1),
      ),
    );
    const learner = samples.map((ys) => ys.map((y) => Math.log(pi[y]!)));
    const used = corrected
      ? correctRollouts(datums, learner, { level, mode: 'truncate', cap: 5 }).datums_D
      : datums.map((d, i) => ({ ...d, logprobs: learner[i]! })); // learner-recomputed old logprobs, mismatch ignored
    const est = new Array<number>(K).fill(0);
    used.forEach((d, i) => {
      const g = perTokenLossGrad({ kind: 'importance_sampling' }, { targetLogprobs: learner[i]!, samplingLogprobs: d.logprobs, advantages: d.advantages });
      samples[i]!.forEach((y, t) => {
        for (let k = 0; k < K; k++) est[k]! += (-g[t]! * ((k === y ? 1 : 0) - pi[k]!)) / N;
      });
    });
    return Math.hypot(...est.map((v, k) => v - exact[k]!));
  }

  for (const level of ['token', 'sequence'] as const) {
    it(`${level} TIS brings a perturbed sampler's gradient closer to the on-policy one (3 seeds)`, () => {
      for (const seed of [1, 2, 3]) {
        const unc = policyGradientError(level, false, seed);
        const cor = policyGradientError(level, true, seed);
        expect(cor).toBeLessThan(unc / 3);
      }
    });
  }
});

describe('DAPO overlong penalty and learning-rate schedules', () => {
  it('overlong: 0 before the buffer, linear inside it, −penalty past the budget', () => {
    expect(overlongPenalty(60, 100, 20, 1)).toBe(0);
    expect(overlongPenalty(80, 100, 20, 1)).toBe(0);
    expect(overlongPenalty(90, 100, 20, 1)).toBeCloseTo(-0.5, 12);
    expect(overlongPenalty(100, 100, 20, 2)).toBeCloseTo(-2, 12);
    expect(overlongPenalty(101, 100, 20, 2)).toBe(-2);
  });

  it('warm-up, then constant / linear / cosine', () => {
    const lr = (kind: 'constant' | 'linear' | 'cosine', step: number) => scheduledLearningRate({ kind, warmupSteps: 2 }, 1, step, 10);
    expect([1, 2].map((s) => lr('cosine', s))).toEqual([0.5, 1]);
    expect(lr('constant', 10)).toBe(1);
    expect(lr('linear', 3)).toBe(1);
    expect(lr('linear', 7)).toBeCloseTo(0.5, 12);
    expect(lr('cosine', 7)).toBeCloseTo(0.5, 12);
    expect(lr('cosine', 5)).toBeCloseTo(0.5 * (1 + Math.cos(Math.PI * 0.25)), 12);
    expect(lr('cosine', 10)).toBeCloseTo(0.5 * (1 + Math.cos((Math.PI * 7) / 8)), 12);
    expect(scheduledLearningRate(undefined, 3e-4, 5, 10)).toBe(3e-4);
  });
});
