import { describe, expect, it } from 'vitest';
import { tinyBackend } from './helpers.js';

describe('local sampler release()', () => {
  it('frees the weights version after the calls in progress; later calls reject with a typed error', async () => {
    const backend = tinyBackend();
    try {
      const s = await backend.saveWeightsForSampler();
      const inFlight = s.sample([1, 2, 3], { numSamples: 2, maxTokens: 30, seed: 1 });
      const lp = s.computeLogprobs([1, 2, 3, 4]);
      s.release!();
      s.release!(); // idempotent
      expect(await inFlight).toHaveLength(2);
      expect((await lp).slice(1).every((x) => Number.isFinite(x))).toBe(true);
      await expect(s.sample([1, 2], { maxTokens: 2 })).rejects.toMatchObject({ code: 'BACKEND_INPUT' });
      await expect(s.computeLogprobs([1, 2])).rejects.toMatchObject({ code: 'BACKEND_INPUT' });
      // Other versions and the backend are untouched.
      const next = await backend.saveWeightsForSampler();
      expect(await next.sample([1, 2, 3], { numSamples: 2, maxTokens: 30, seed: 1 })).toEqual(await inFlight);
    } finally {
      await backend.close();
    }
  });
});
