import { describe, expect, it } from 'vitest';
import { ConfigError, DatumShapeError } from '../../src/errors/index.js';
import { defineLoss, LOSSES, lossSequence, parseLossConfig, perTokenLoss, referenceLoss } from '../../src/loss/index.js';
import { perTokenLossGrad } from './per-token-grad.js';
import type { LossConfig, LossSequence } from '../../src/types/index.js';

const GSPO: LossConfig = { kind: 'gspo', clipLow: 1 - 3e-4, clipHigh: 1 + 4e-4 };

/** Numerical ∂(Σ_u c_u ℓ_u)/∂lp_t by central differences on lp_t alone. */
function numericGrad(cfg: LossConfig, s: LossSequence, coef: readonly number[]): number[] {
  const h = 1e-6;
  const total = (lp: readonly number[]) => perTokenLoss(cfg, { ...s, targetLogprobs: lp }).reduce((a, l, u) => a + coef[u]! * l, 0);
  return s.targetLogprobs.map((_, t) => {
    const up = s.targetLogprobs.map((x, u) => (u === t ? x + h : x));
    const down = s.targetLogprobs.map((x, u) => (u === t ? x - h : x));
    return (total(up) - total(down)) / (2 * h);
  });
}

describe('loss registry: every LossConfig kind is defined once', () => {
  it('has a definition for each kind, and its optionKeys are what its schema accepts', () => {
    expect(Object.keys(LOSSES).sort()).toEqual(['cispo', 'cross_entropy', 'custom', 'gspo', 'importance_sampling', 'ppo']);
    expect(() => parseLossConfig({ kind: 'gspo', clipLow: 0.9997, clipHigh: 1.0004, dualClip: 3 })).toThrow(ConfigError);
    expect(() => parseLossConfig({ kind: 'gspo', clipLow: 1.2, clipHigh: 1.0004 })).toThrow(/loss.clipLow: expected a number in \(0, 1\), got 1.2/);
  });
});

describe('gspo', () => {
  // Two sampled tokens with lp − sampling = ln 1.2 and 0, one prompt token: s = exp(ln(1.2)/2) = √1.2.
  const base = { targetLogprobs: [-9, Math.log(1.2) - 1, -2], samplingLogprobs: [50, -1, -2], mask: [0, 1, 1] };
  const s = Math.sqrt(1.2);

  it('clips the sequence ratio for A > 0 (√1.2 > 1.0004 → every token −1.0004)', () => {
    const l = perTokenLoss(GSPO, { ...base, advantages: [0, 1, 1] });
    expect(l[0]).toBe(0);
    expect(l[1]).toBeCloseTo(-1.0004, 12);
    expect(l[2]).toBeCloseTo(-1.0004, 12);
    expect(perTokenLossGrad(GSPO, { ...base, advantages: [0, 1, 1] })).toEqual([0, 0, 0]);
    const r = referenceLoss(
      [{ modelInput: [1, 2, 3], targetTokens: [2, 3, 4], logprobs: base.samplingLogprobs, advantages: [0, 1, 1], mask: base.mask }],
      [base.targetLogprobs],
      GSPO,
    );
    expect(r.clipFrac).toBe(1);
    expect(r.loss).toBeCloseTo(-1.0004, 12);
  });

  it('leaves it unclipped for A < 0 (loss s·|A|, gradient −s·A/n per masked token)', () => {
    const inputs = { ...base, advantages: [0, -2, -2] };
    const l = perTokenLoss(GSPO, inputs);
    expect(l[1]).toBeCloseTo(2 * s, 12);
    const g = perTokenLossGrad(GSPO, inputs);
    // Σ_u A_u = −4 over two masked tokens; ∂s/∂lp_t = s/2 → ∂(Σ ℓ)/∂lp_t = −(s/2)·(−4) = 2s.
    expect(g[0]).toBe(0);
    expect(g[1]).toBeCloseTo(2 * s, 12);
    expect(g[2]).toBeCloseTo(2 * s, 12);
  });

  it('needs the mask (the ratio averages over the sampled tokens)', () => {
    const e = (() => {
      try {
        perTokenLoss(GSPO, { targetLogprobs: [-1], samplingLogprobs: [-1], advantages: [1] });
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(DatumShapeError);
    expect((e as DatumShapeError).field).toBe('mask');
  });
});

describe('each kind: grad is the derivative of Σ c·ℓ (numerical check)', () => {
  const seqs: LossSequence[] = [
    {
      targetLogprobs: [-1.3, -0.2, -2.5, -0.9],
      samplingLogprobs: [-1.0, -0.5, -2.0, -1.1],
      advantages: [0.7, 0.7, -0.4, 0],
      weights: [1, 0.5, 1, 0],
      mask: [1, 1, 1, 0],
    },
    { targetLogprobs: [-3.1, -0.05, -1.6], samplingLogprobs: [-3.0, -0.06, -1.4], advantages: [-1.2, -1.2, -1.2], weights: [1, 1, 1], mask: [1, 1, 1] },
  ];
  const coef = [
    [0.25, 0.25, 0.5, 0],
    [1, 2, 0.5],
  ];
  const configs: LossConfig[] = [
    { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    { kind: 'importance_sampling' },
    { kind: 'cross_entropy' },
    { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 },
    { kind: 'gspo', clipLow: 1 - 3e-4, clipHigh: 1 + 4e-4 },
  ];
  for (const cfg of configs) {
    it(`${cfg.kind} ${JSON.stringify(cfg)}`, () => {
      seqs.forEach((s, i) => {
        const g = LOSSES[cfg.kind].grad(cfg as never, lossSequence(cfg, s), coef[i]!);
        const n = numericGrad(cfg, s, coef[i]!);
        g.forEach((x, t) => {
          expect(x).toBeCloseTo(n[t]!, 5);
        });
      });
    });
  }
  it('cispo (stop-gradient on the clipped ratio: −clip(r)·A·c)', () => {
    const cfg: LossConfig = { kind: 'cispo', clipLow: 0.9, clipHigh: 1.1 };
    const s = seqs[0]!;
    const g = perTokenLossGrad(cfg, s, coef[0]);
    const r = s.targetLogprobs.map((lp, t) => Math.exp(lp - s.samplingLogprobs[t]!));
    g.forEach((x, t) => {
      expect(x).toBeCloseTo(-Math.min(Math.max(r[t]!, 0.9), 1.1) * s.advantages[t]! * coef[0]![t]!, 12);
    });
  });
});

describe('custom losses (defineLoss)', () => {
  const reinforce = defineLoss({ name: 'reinforce', level: 'token', perToken: (s) => s.targetLogprobs.map((lp, t) => -lp * s.advantages[t]!) });
  const s = { targetLogprobs: [-1, -2, -0.5], samplingLogprobs: [-1, -2, -0.5], advantages: [2, -1, 0.5] };

  it('a token-level loss without grad gets its gradient by central differences (−A·c for REINFORCE)', () => {
    const g = perTokenLossGrad({ kind: 'custom', loss: reinforce }, s, [1, 0.5, 2]);
    expect(g[0]).toBeCloseTo(-2, 8);
    expect(g[1]).toBeCloseTo(0.5, 8);
    expect(g[2]).toBeCloseTo(-1, 8);
  });

  it('uses the loss own grad when given, and its clipped() for clip_frac', () => {
    const tis = defineLoss({
      name: 'tis',
      level: 'token',
      perToken: (q) => q.targetLogprobs.map((lp, t) => -Math.min(Math.exp(lp - q.samplingLogprobs[t]!), 1.5) * q.advantages[t]!),
      grad: (q, c) =>
        q.targetLogprobs.map((lp, t) => {
          const r = Math.exp(lp - q.samplingLogprobs[t]!);
          return r > 1.5 ? 0 : -r * q.advantages[t]! * c[t]!;
        }),
      clipped: (q) => q.targetLogprobs.map((lp, t) => Math.exp(lp - q.samplingLogprobs[t]!) > 1.5),
    });
    const q = { targetLogprobs: [Math.log(2), 0], samplingLogprobs: [0, 0], advantages: [1, 1] };
    expect(perTokenLossGrad({ kind: 'custom', loss: tis }, q)).toEqual([0, -1]);
    const r = referenceLoss([{ modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, 0], advantages: [1, 1], mask: [1, 1] }], [q.targetLogprobs], {
      kind: 'custom',
      loss: tis,
    });
    expect(r.clipFrac).toBe(0.5);
    expect(r.loss).toBeCloseTo((-1.5 - 1) / 2, 12);
  });

  it('refuses a sequence-level loss without grad, a non-loss, and wrong-length outputs', () => {
    expect(() => parseLossConfig({ kind: 'custom', loss: { name: 'x', level: 'sequence', perToken: () => [] } })).toThrow(
      /loss.loss: expected a loss made with defineLoss/,
    );
    expect(() => parseLossConfig({ kind: 'custom', loss: 'reinforce' })).toThrow(ConfigError);
    const bad = defineLoss({ name: 'short', level: 'token', perToken: () => [1] });
    expect(() => perTokenLoss({ kind: 'custom', loss: bad }, s)).toThrow(DatumShapeError);
  });
});
