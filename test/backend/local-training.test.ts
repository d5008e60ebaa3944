import { afterAll, describe, expect, it } from 'vitest';
import type { Datum } from '../../src/types/datum.js';
import { tinyBackend } from './helpers.js';

const text = (s: string) => Array.from(Buffer.from(s, 'utf8'));
const sft = (s: string): Datum => {
  const t = text(s);
  const T = t.length - 1;
  return { modelInput: t.slice(0, T), targetTokens: t.slice(1), logprobs: Array(T).fill(0), advantages: Array(T).fill(0), mask: Array(T).fill(1) };
};

describe('local engine training', () => {
  const backend = tinyBackend();
  afterAll(() => backend.close());

  it('cross_entropy on a tiny fixed dataset: loss falls', async () => {
    // Hazard: gradients with the wrong sign or an optimizer that does not apply them.
    const data = ['the cat sat on the mat. ', 'a dog ate the hat. ', '2+2=4; 3+3=6. '].map(sft);
    const losses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await backend.forwardBackward(data, { kind: 'cross_entropy' });
      losses.push(r.metrics.loss!);
      await backend.optimStep({ learningRate: 1e-2 });
    }
    expect(losses[0]).toBeGreaterThan(5); // ≈ ln(vocab) at init
    expect(losses.at(-1)!).toBeLessThan(losses[0]! - 1.5);
  });

  it('a positive-advantage PPO step raises the logprob of rewarded tokens', async () => {
    // Hazard: the policy moving away from rewarded actions (sign or ratio error in the PPO loss).
    const b = tinyBackend({ seed: 3 });
    const sampler = await b.saveWeightsForSampler();
    const prompt = text('Q: hi\nA:');
    const [seq] = await sampler.sample(prompt, { maxTokens: 12, seed: 1 });
    const toks = [...prompt, ...seq!.tokens];
    const T = toks.length - 1;
    const mask = Array.from({ length: T }, (_, t) => (t >= prompt.length - 1 ? 1 : 0));
    const d: Datum = {
      modelInput: toks.slice(0, T),
      targetTokens: toks.slice(1),
      logprobs: mask.map((m, t) => (m ? seq!.logprobs[t - (prompt.length - 1)]! : 0)),
      advantages: mask.map((m) => m),
      mask,
    };
    const before = await b.forwardBackward([d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 });
    expect(before.metrics.kl_sample_train).toBeLessThan(1e-4); // on-policy: ratio ≈ 1
    await b.optimStep({ learningRate: 3e-3 });
    const after = await b.computeLogprobs(toks);
    const sum = (xs: readonly (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
    const rewardedBefore = sum(before.logprobs[0]!.filter((_, t) => mask[t]));
    const rewardedAfter = sum(after.slice(1).filter((_, t) => mask[t]));
    expect(rewardedAfter).toBeGreaterThan(rewardedBefore + 0.1);
    await b.close();
  });

  it('optimStep with a changing learning rate keeps working (lr is an input, not a constant)', async () => {
    // Hazard: lr baked into a jitted closure — silently stale or recompiled every step.
    const b = tinyBackend();
    const data = [sft('abcabcabc')];
    for (const lr of [1e-3, 2e-3, 0]) {
      await b.forwardBackward(data, { kind: 'cross_entropy' });
      const r = await b.optimStep({ learningRate: lr });
      expect(r.metrics.learning_rate).toBe(lr);
    }
    const before = await b.computeLogprobs(data[0]!.modelInput);
    await b.forwardBackward(data, { kind: 'cross_entropy' });
    await b.optimStep({ learningRate: 0, weightDecay: 0 });
    expect(await b.computeLogprobs(data[0]!.modelInput)).toEqual(before);
    await b.close();
  });
});
