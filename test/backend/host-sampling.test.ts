import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { drawToken, logSoftmaxAt, topLogprobs } from '../../src/backend/local/host-sampling.js';

const logits = Float32Array.from([0.1, 2.5, -1, 2.4, 0]);

describe('drawToken', () => {
  it('temperature 0 is argmax with the T=1 logprob', () => {
    // Hazard: greedy decoding reporting a logprob the learner cannot reproduce.
    const r = drawToken(logits, { temperature: 0, topP: 1, topK: 0 }, 0.99);
    expect(r.token).toBe(1);
    expect(r.logprob).toBeCloseTo(logSoftmaxAt(logits, 1, 1), 12);
  });

  it('topK = 1 always returns the argmax', () => {
    // Hazard: top-k truncation leaking tail tokens.
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.999999, noNaN: true }), (u) => {
        expect(drawToken(logits, { temperature: 1, topP: 1, topK: 1 }, u).token).toBe(1);
      }),
    );
  });

  it('topP keeps only the nucleus', () => {
    // Hazard: nucleus sampling drawing tokens outside the top-p mass.
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.999999, noNaN: true }), (u) => {
        expect([1, 3]).toContain(drawToken(logits, { temperature: 1, topP: 0.8, topK: 0 }, u).token);
      }),
    );
  });

  it('reports log softmax(logits / T) of the drawn token over the full vocabulary', () => {
    // Hazard: sampler logprobs inconsistent with the temperature-scaled distribution (breaks PPO ratios).
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.999999, noNaN: true }), fc.double({ min: 0.1, max: 3, noNaN: true }), (u, T) => {
        const r = drawToken(logits, { temperature: T, topP: 1, topK: 0 }, u);
        expect(r.logprob).toBeCloseTo(logSoftmaxAt(logits, T, r.token), 6);
      }),
    );
  });

  it('is a deterministic function of the uniform draw', () => {
    // Hazard: hidden randomness (Math.random) breaking seeded reproducibility.
    for (const u of [0, 0.3, 0.7, 0.999]) {
      expect(drawToken(logits, { temperature: 1, topP: 0.9, topK: 3 }, u)).toEqual(drawToken(logits, { temperature: 1, topP: 0.9, topK: 3 }, u));
    }
  });
});

describe('topLogprobs (issue 24 §7: the alternatives /v1 returns)', () => {
  it('equals a full sort of log softmax(logits / T), most likely first, ties by lower id, for random logits, k and T', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -20, max: 20, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(0, 0.3, 1, 1.7),
        (xs, k, T) => {
          const logits = Float32Array.from(xs.map((x) => Math.round(x * 4) / 4)); // quarter steps: ties happen
          const got = topLogprobs(logits, T, k);
          const t = T === 0 ? 1 : T;
          const want = [...logits.keys()]
            .sort((a, b) => logits[b]! - logits[a]! || a - b)
            .slice(0, k)
            .map((token) => ({ token, logprob: logSoftmaxAt(logits, t, token) }));
          expect(got.map((g) => g.token)).toEqual(want.map((w) => w.token));
          got.forEach((g, i) => {
            expect(g.logprob).toBeCloseTo(want[i]!.logprob, 5);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the sampled token, when among the top k, has exactly the logprob drawToken reported', () => {
    const logits = Float32Array.from({ length: 50 }, (_, i) => Math.sin(i * 1.7) * 3);
    for (let u = 0; u < 1; u += 0.05) {
      const { token, logprob } = drawToken(logits, { temperature: 0.8, topP: 1, topK: 0 }, u);
      const alt = topLogprobs(logits, 0.8, 50).find((a) => a.token === token)!;
      expect(alt.logprob).toBeCloseTo(logprob, 10);
    }
  });
});
