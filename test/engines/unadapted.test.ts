/**
 * The control of the parity matrix: the same runs with a client that does not adapt (the hosted-Tinker profile)
 * against the SkyRL simulators train something else — so the parity tests can fail, and do fail on a client that
 * sends Tinker's token-sum wire to an engine that normalises, or Adam fields to an engine that ignores them.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tinkerBackend } from 'agentrl';
import { startEngine, type EngineSimulator } from './simulators/index.js';
import { PARITY_MODEL, maxRelDiff, runLocal, runOnSimulator } from './parity.js';
import { optimizerFor } from './cases.js';

const open: EngineSimulator[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

describe('an unadapted client (engine: tinker) gets a different update', () => {
  it('skyrl-jax: per-sequence normalisation shrinks the gradient (ppo)', async () => {
    const sim = await startEngine('skyrl-jax', { model: PARITY_MODEL });
    open.push(sim);
    const extra = { loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, optimizer: optimizerFor('skyrl-jax') } as const;
    const remote = await runOnSimulator(sim, extra, 'tinker');
    const local = await runLocal(extra);
    if (remote.kind !== 'trained' || local.kind !== 'trained') throw new Error('both runs should train');
    expect(remote.gradNorms[0]!).toBeLessThan(local.gradNorms[0]! / 5);
    expect(maxRelDiff(remote.logprobs, local.logprobs)).toBeGreaterThan(1e-4);
  }, 180_000);

  it('skyrl-fsdp: Adam fields other than the learning rate are not applied (beta2 0.95, no weight decay configured)', async () => {
    const sim = await startEngine('skyrl-fsdp', { model: PARITY_MODEL });
    open.push(sim);
    const extra = {
      loss: { kind: 'importance_sampling' },
      optimizer: { learningRate: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, gradClipNorm: 0 },
    } as const;
    const remote = await runOnSimulator(sim, extra, 'tinker');
    const local = await runLocal(extra);
    if (remote.kind !== 'trained' || local.kind !== 'trained') throw new Error('both runs should train');
    expect(sim.record.adam[0]).toMatchObject({ beta2: 0.999, weight_decay: 0.01, grad_clip_norm: 1 });
    expect(maxRelDiff(remote.logprobs, local.logprobs)).toBeGreaterThan(1e-5);
  }, 180_000);
});

describe('one model per server (skyrl-fsdp): resume through loadState', () => {
  const datum = {
    modelInput: [1, 2, 3, 4, 5, 6],
    targetTokens: [2, 3, 4, 5, 6, 7],
    logprobs: [0, 0, -1, -1, -1, -1],
    advantages: [0, 0, 1, -1, 1, 0.5],
    mask: [0, 0, 1, 1, 1, 1],
  };
  for (const clientEngine of ['skyrl-fsdp', 'tinker'] as const) {
    it(`loadState after training: ${clientEngine === 'skyrl-fsdp' ? 'the adapted client unloads the model first and resumes' : 'an unadapted client gets register_adapter NotImplementedError'}`, async () => {
      const sim = await startEngine('skyrl-fsdp', { model: PARITY_MODEL });
      open.push(sim);
      const b = tinkerBackend({
        engine: clientEngine,
        baseUrl: sim.url,
        baseModel: 'agentrl/local',
        renderer: fileURLToPath(new URL('../../assets/local-model', import.meta.url)),
        maxContextTokens: PARITY_MODEL.contextTokens,
        retry: { tryAgainDelayMs: 0 },
        onWarning: () => undefined,
      });
      try {
        await b.forwardBackward([datum], { kind: 'importance_sampling', aggregation: 'token-sum' });
        await b.optimStep({ learningRate: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 });
        const dir = join(await mkdtemp(join(tmpdir(), 'agentrl-engines-')), 'state');
        await b.saveState(dir);
        const saved = await sim.policyLogprobs(datum.modelInput);
        if (clientEngine === 'tinker') {
          await expect(b.loadState(dir)).rejects.toThrow(/register_adapter is not implemented/);
          return;
        }
        await b.loadState(dir);
        expect(sim.inner.modelCount).toBe(1);
        expect(maxRelDiff(await sim.policyLogprobs(datum.modelInput), saved)).toBeLessThanOrEqual(1e-6);
        await b.forwardBackward([datum], { kind: 'importance_sampling', aggregation: 'token-sum' });
      } finally {
        await b.close();
      }
    }, 120_000);
  }
});
