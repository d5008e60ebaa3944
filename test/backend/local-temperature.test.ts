import { afterAll, describe, expect, it } from 'vitest';
import type { Datum } from '../../src/types/datum.js';
import type { SampledSequence } from '../../src/types/sampling.js';
import { tinyBackend } from './helpers.js';

const text = (s: string) => Array.from(Buffer.from(s, 'utf8'));

/** An RL datum for `prompt ++ seq` with the sampler's logprobs and advantage `adv` on the sampled tokens. */
function onPolicyDatum(prompt: readonly number[], seq: SampledSequence, adv: number): Datum {
  const toks = [...prompt, ...seq.tokens];
  const T = toks.length - 1;
  const first = prompt.length - 1;
  const mask = Array.from({ length: T }, (_, t) => (t >= first ? 1 : 0));
  return {
    modelInput: toks.slice(0, T),
    targetTokens: toks.slice(1),
    logprobs: mask.map((m, t) => (m ? seq.logprobs[t - first]! : 0)),
    advantages: mask.map((m) => m * adv),
    mask,
  };
}

describe('local backend: sampler and learner agree at any temperature', () => {
  const backend = tinyBackend({ seed: 11 });
  afterAll(() => backend.close());
  const ppo = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 } as const;

  for (const temperature of [0.6, 1, 1.5]) {
    it(`T = ${temperature}, top-p 0.9, identical weights: clip_frac 0 and |kl_sample_train| < 1e-4`, async () => {
      // Hazard: the sampler reports log softmax(logits / T) while the learner computes log softmax(logits),
      // so on-policy data shows a ratio ≠ 1 (clip_frac 0.14, kl 0.34 at T = 1.5 before the fix).
      const sampler = await backend.saveWeightsForSampler();
      const prompts = ['Q: 2+2?\nA:', 'hello there', 'x = 41; x + 1 ='].map(text);
      const datums: Datum[] = [];
      for (const [i, prompt] of prompts.entries()) {
        const seqs = await sampler.sample(prompt, { numSamples: 2, maxTokens: 24, temperature, topP: 0.9, seed: 100 + i });
        seqs.forEach((s, g) => {
          datums.push(onPolicyDatum(prompt, s, g === 0 ? 1 : -1));
        });
      }
      const r = await backend.forwardBackward(datums, ppo, { sampling: { temperature, topP: 0.9 } });
      expect(r.metrics.tokens).toBeGreaterThan(50);
      expect(r.metrics.clip_frac).toBe(0);
      expect(Math.abs(r.metrics.kl_sample_train!)).toBeLessThan(1e-4);
      await backend.optimStep({ learningRate: 0 }); // drop the accumulated gradients, weights unchanged
    });
  }

  it('the same data scored without the temperature is visibly off-policy (the check above can fail)', async () => {
    const sampler = await backend.saveWeightsForSampler();
    const prompt = text('Q: 2+2?\nA:');
    const seqs = await sampler.sample(prompt, { numSamples: 4, maxTokens: 24, temperature: 1.5, topP: 0.9, seed: 5 });
    const datums = seqs.map((s) => onPolicyDatum(prompt, s, 1));
    const r = await backend.forwardBackward(datums, ppo);
    expect(Math.abs(r.metrics.kl_sample_train!)).toBeGreaterThan(1e-3); // 10× the bound above, on a near-uniform tiny model
    await backend.optimStep({ learningRate: 0 });
  });

  it('declares what it reproduces: temperature, top-p/top-k scored over the full vocabulary', () => {
    expect(backend.samplingSupport).toEqual({ temperature: true, truncation: 'full-vocabulary' });
  });

  it('a sample() call whose signal aborts rejects with the reason, and the sampler keeps working', async () => {
    // Hazard: abort() not reaching the sampler, so a long generation keeps decoding after the step ended.
    const sampler = await backend.saveWeightsForSampler();
    const ac = new AbortController();
    const pending = sampler.sample(text('abc'), { maxTokens: 100, numSamples: 3, signal: ac.signal });
    ac.abort(new Error('stop now'));
    await expect(pending).rejects.toThrow('stop now');
    await expect(sampler.sample(text('abc'), { maxTokens: 1, signal: ac.signal })).rejects.toThrow('stop now');
    const [ok] = await sampler.sample(text('abc'), { maxTokens: 5, seed: 1 });
    expect(ok!.tokens.length).toBeGreaterThan(0);
  });
});
