import { afterAll, describe, expect, it } from 'vitest';
import { localBackend } from '../../src/backend/index.js';
import { BackendInputError, ConfigError } from '../../src/errors/index.js';
import { LOCAL_VOCAB, lcg, randomDatum, tinyBackend } from './helpers.js';

describe('local backend input validation', () => {
  const backend = tinyBackend();
  afterAll(() => backend.close());
  const good = randomDatum(lcg(1), 10, 3);

  it('rejects token ids outside the vocabulary', async () => {
    // Hazard: out-of-range ids silently reading garbage embedding rows.
    const sampler = await backend.saveWeightsForSampler();
    await expect(sampler.sample([1, 2, LOCAL_VOCAB], { maxTokens: 3 })).rejects.toBeInstanceOf(BackendInputError);
    await expect(sampler.sample([1, -1], { maxTokens: 3 })).rejects.toBeInstanceOf(BackendInputError);
    await expect(sampler.sample([1, 2.5], { maxTokens: 3 })).rejects.toBeInstanceOf(BackendInputError);
    await expect(backend.computeLogprobs([1, LOCAL_VOCAB + 10])).rejects.toBeInstanceOf(BackendInputError);
    await expect(
      backend.forwardBackward([{ ...good, targetTokens: good.targetTokens.map(() => LOCAL_VOCAB + 35) }], { kind: 'cross_entropy' }),
    ).rejects.toBeInstanceOf(BackendInputError);
  });

  it('rejects prompts and datums longer than the context', async () => {
    // Hazard: a learned position table indexed past its end.
    const sampler = await backend.saveWeightsForSampler();
    await expect(sampler.sample(Array(128).fill(1), { maxTokens: 1 })).rejects.toBeInstanceOf(BackendInputError);
    const long = randomDatum(lcg(2), 129, 0);
    await expect(backend.forwardBackward([long], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
    await expect(backend.computeLogprobs(Array(129).fill(1))).rejects.toBeInstanceOf(BackendInputError);
  });

  it('rejects empty batches, empty and ragged datums', async () => {
    // Hazard: NaN losses (0/0) or misaligned arrays reaching the optimizer.
    await expect(backend.forwardBackward([], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
    const empty = { modelInput: [], targetTokens: [], logprobs: [], advantages: [], mask: [] };
    await expect(backend.forwardBackward([empty], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
    await expect(backend.forwardBackward([{ ...good, mask: good.mask.slice(1) }], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
    await expect(
      backend.forwardBackward([{ ...good, advantages: good.advantages.map(() => NaN) }], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2 }),
    ).rejects.toBeInstanceOf(BackendInputError);
    await expect((await backend.saveWeightsForSampler()).sample([], { maxTokens: 2 })).rejects.toBeInstanceOf(BackendInputError);
  });

  it('still works after rejected inputs (no crash, no corrupted state)', async () => {
    // Hazard: a thrown error leaving the engine half-updated.
    const r = await backend.forwardBackward([good], { kind: 'cross_entropy' });
    expect(Number.isFinite(r.metrics.loss)).toBe(true);
    const [s] = await (await backend.saveWeightsForSampler()).sample([1, 2, 3], { maxTokens: 4, seed: 1 });
    expect(s!.tokens).toHaveLength(4);
  });

  it('defaults to the documented small model without starting the engine', () => {
    // Hazard: constructing a backend doing heavy work (or failing) before first use.
    const b = localBackend();
    expect(b.maxContextTokens).toBe(512);
    expect(b.name).toBe('local');
    expect(b.specificationVersion).toBe('v1');
  });

  it('rejects calls after close()', async () => {
    // Hazard: a closed backend silently re-initialising with random weights.
    const b = tinyBackend();
    await b.close();
    await expect(b.computeLogprobs([1, 2])).rejects.toBeInstanceOf(BackendInputError);
  });

  it('rejects bad options with ConfigError listing paths', () => {
    // Hazard: typos in options silently ignored.
    expect(() => localBackend({ dModel: 30, heads: 4 })).toThrow(/dModel/);
    expect(() => localBackend({ layers: 0 } as never)).toThrow(ConfigError);
    expect(() => localBackend({ layer: 2 } as never)).toThrow(/layer/);
  });
});
