import { afterAll, describe, expect, it } from 'vitest';
import type { SampledSequence } from '../../src/types/sampling.js';
import { tinyBackend } from './helpers.js';

const prompt = Array.from(Buffer.from('<question> what is 12*7? ', 'utf8'));

describe('local sampler', () => {
  const backend = tinyBackend();
  afterAll(() => backend.close());

  it('sampled logprobs agree with computeLogprobs and forwardBackward within 1e-4', async () => {
    // Hazard: KV-cache decode drifting from the training forward → PPO ratios ≠ 1 on-policy.
    const sampler = await backend.saveWeightsForSampler();
    const seqs = await sampler.sample(prompt, { numSamples: 3, maxTokens: 30, seed: 5 });
    for (const s of seqs) {
      const all = [...prompt, ...s.tokens];
      const lp = await sampler.computeLogprobs(all);
      const lpTrain = await backend.computeLogprobs(all);
      s.tokens.forEach((_, i) => {
        expect(Math.abs(lp[prompt.length + i]! - s.logprobs[i]!)).toBeLessThanOrEqual(1e-4);
        expect(Math.abs(lpTrain[prompt.length + i]! - s.logprobs[i]!)).toBeLessThanOrEqual(1e-4);
      });
      const T = all.length - 1;
      const fb = await backend.forwardBackward(
        [{ modelInput: all.slice(0, T), targetTokens: all.slice(1), logprobs: Array(T).fill(0), advantages: Array(T).fill(0), mask: Array(T).fill(1) }],
        { kind: 'cross_entropy' },
      );
      s.tokens.forEach((_, i) => {
        expect(Math.abs(fb.logprobs[0]![prompt.length - 1 + i]! - s.logprobs[i]!)).toBeLessThanOrEqual(1e-4);
      });
    }
  });

  it('same seed gives the same tokens; concurrent calls give the same result as sequential ones', async () => {
    // Hazard: continuous batching making a request's tokens depend on its batch neighbours.
    const sampler = await backend.saveWeightsForSampler();
    const params = [1, 2, 3, 4].map((seed) => ({ numSamples: seed % 2 ? 2 : 1, maxTokens: 25, seed, temperature: 1.2, topP: 0.95 }));
    const sequential: SampledSequence[][] = [];
    for (const p of params) sequential.push(await sampler.sample(prompt.slice(0, 10 + p.seed), p));
    const concurrent = await Promise.all(params.map((p) => sampler.sample(prompt.slice(0, 10 + p.seed), p)));
    concurrent.forEach((seqs, i) => {
      seqs.forEach((s, j) => {
        expect(s.tokens).toEqual(sequential[i]![j]!.tokens);
        s.logprobs.forEach((x, k) => {
          expect(Math.abs(x - sequential[i]![j]!.logprobs[k]!)).toBeLessThan(1e-4);
        });
      });
    });
  });

  it('stays consistent when the KV cache grows mid-generation and requests join a running batch', async () => {
    // Hazard: cache re-layout (64 → 128 positions, new rows) corrupting keys/values of live rows.
    const sampler = await backend.saveWeightsForSampler();
    const shortP = prompt.slice(0, 5);
    const longP = Array.from({ length: 70 }, (_, i) => 40 + (i % 50));
    const first = sampler.sample(shortP, { numSamples: 2, maxTokens: 80, seed: 9, stop: [] });
    await new Promise((r) => setTimeout(r, 5)); // let the first request start decoding
    const [a, b] = await Promise.all([first, sampler.sample(longP, { numSamples: 1, maxTokens: 40, seed: 10, stop: [] })]);
    for (const [p, seqs] of [
      [shortP, a!],
      [longP, b!],
    ] as const) {
      for (const s of seqs) {
        const lp = await sampler.computeLogprobs([...p, ...s.tokens]);
        s.tokens.forEach((_, i) => {
          expect(Math.abs(lp[p.length + i]! - s.logprobs[i]!)).toBeLessThanOrEqual(1e-4);
        });
      }
    }
    expect(a![0]!.tokens).toHaveLength(80);
  });

  it('honours stop tokens (included), maxTokens and the context limit', async () => {
    // Hazard: runaway generations, or stop tokens dropped so the renderer cannot parse the turn.
    const sampler = await backend.saveWeightsForSampler();
    const greedy = await sampler.sample(prompt, { maxTokens: 20, temperature: 0 });
    const stopTok = greedy[0]!.tokens[4]!;
    const [s] = await sampler.sample(prompt, { maxTokens: 20, temperature: 0, stop: [stopTok] });
    expect(s!.stopReason).toBe('stop');
    expect(s!.tokens.at(-1)).toBe(stopTok);
    expect(s!.tokens.length).toBeLessThanOrEqual(5);
    expect(greedy[0]!.tokens).toHaveLength(20);
    expect(greedy[0]!.stopReason).toBe('length');
    const long = Array.from({ length: 120 }, (_, i) => 97 + (i % 20));
    const [c] = await sampler.sample(long, { maxTokens: 50, stop: [] });
    expect(c!.tokens).toHaveLength(8); // clamped: 120 + 8 = context 128
  });

  it('a sampler keeps its weights after later optimizer steps', async () => {
    // Hazard: on-policy logprobs silently computed with newer weights.
    const b = tinyBackend();
    const sampler = await b.saveWeightsForSampler();
    const before = await sampler.computeLogprobs(prompt);
    const T = prompt.length - 1;
    await b.forwardBackward(
      [{ modelInput: prompt.slice(0, T), targetTokens: prompt.slice(1), logprobs: Array(T).fill(0), advantages: Array(T).fill(0), mask: Array(T).fill(1) }],
      { kind: 'cross_entropy' },
    );
    await b.optimStep({ learningRate: 1e-2 });
    expect(await sampler.computeLogprobs(prompt)).toEqual(before);
    expect(await b.computeLogprobs(prompt)).not.toEqual(before);
    await b.close();
  });
});
