import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeSafetensors, localBackend } from '../../src/backend/index.js';
import { CheckpointError, ConfigError } from '../../src/errors/index.js';
import { LOCAL_VOCAB, TINY, tinyBackend } from './helpers.js';

const dirs: string[] = [];
const tmp = async () => {
  const d = await mkdtemp(join(tmpdir(), 'agentrl-ckpt-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const text = Array.from(Buffer.from('checkpoint me, please. ', 'utf8'));
const T = text.length - 1;
const datum = { modelInput: text.slice(0, T), targetTokens: text.slice(1), logprobs: Array(T).fill(0), advantages: Array(T).fill(0), mask: Array(T).fill(1) };

describe('local checkpoints', () => {
  it('save → load → identical samples with the same seed (and the optimizer continues identically)', async () => {
    // Hazard: resume producing a different policy or a reset Adam state.
    const a = tinyBackend();
    for (let i = 0; i < 3; i++) {
      await a.forwardBackward([datum], { kind: 'cross_entropy' });
      await a.optimStep({ learningRate: 1e-2 });
    }
    const dir = await tmp();
    await a.saveState(dir);
    const b = tinyBackend({ seed: 99 }); // different init, then loaded
    await b.loadState(dir);
    const c = localBackend({ checkpoint: dir });
    const params = { numSamples: 2, maxTokens: 20, seed: 42 };
    const [sa, sb, sc] = await Promise.all([a, b, c].map(async (x) => (await x.saveWeightsForSampler()).sample(text.slice(0, 8), params)));
    expect(sb).toEqual(sa);
    expect(sc).toEqual(sa);
    // One more identical step on each: Adam moments and step count were restored.
    for (const x of [a, b, c]) {
      await x.forwardBackward([datum], { kind: 'cross_entropy' });
      await x.optimStep({ learningRate: 1e-2 });
    }
    const la = await a.computeLogprobs(text);
    expect(await b.computeLogprobs(text)).toEqual(la);
    expect(await c.computeLogprobs(text)).toEqual(la);
    for (const x of [a, b, c]) await x.close();
  });

  it('writes safetensors weights + optimizer moments and a config.json', async () => {
    // Hazard: checkpoints other tools cannot inspect.
    const a = tinyBackend();
    const dir = await tmp();
    await a.saveState(dir);
    const cfg = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(cfg.model).toMatchObject({ layers: 1, dModel: 32, heads: 2, contextTokens: 128, vocabSize: LOCAL_VOCAB });
    const { tensors } = decodeSafetensors(await readFile(join(dir, 'model.safetensors')));
    expect(tensors.get('wte')!.shape).toEqual([LOCAL_VOCAB, 32]);
    const opt = decodeSafetensors(await readFile(join(dir, 'optimizer.safetensors'))).tensors;
    expect(opt.get('m.wte')!.shape).toEqual([LOCAL_VOCAB, 32]);
    await a.close();
  });

  it('rejects a checkpoint of another shape, a missing dir and a corrupt file', async () => {
    // Hazard: loading mismatched weights silently.
    const dir = await tmp();
    const small = tinyBackend();
    await small.saveState(dir);
    const other = tinyBackend({ dModel: 64 });
    await expect(other.loadState(dir)).rejects.toBeInstanceOf(CheckpointError);
    expect(() => localBackend({ ...TINY, dModel: 64, checkpoint: dir })).toThrow(ConfigError);
    expect(() => localBackend({ checkpoint: join(dir, 'nope') })).toThrow(CheckpointError);
    await writeFile(join(dir, 'model.safetensors'), new Uint8Array(16));
    await expect(small.loadState(dir)).rejects.toBeInstanceOf(CheckpointError);
    await small.close();
    await other.close();
  });
});
