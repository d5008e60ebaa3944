import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Trainer, codeInterpreter, exactMatch, mathReward, ConfigError, localBackend, tinkerBackend } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import type { TrainerOptions } from '../../src/trainer/options.js';
import { localRenderer } from '../helpers/local-renderer.js';

const dataset = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => ({ id, question: `What is ${i} + 1?`, answer: String(i + 1) }));

/** Sample 0 answers right on examples a, c, e (informative groups); every sample is wrong on b, d, f (degenerate). */
async function run(extra: Partial<TrainerOptions>, opts: { logprob?: number; long?: boolean } = {}) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    logprob: opts.logprob ?? -1,
    script: ({ prompt, sample }) => {
      const i = dataset.findIndex((e) => prompt.includes(e.question));
      const filler = opts.long && sample === 1 ? ' padding'.repeat(40) : '';
      return i % 2 === 0 && sample === 0 ? `\\boxed{${i + 1}}` : `I think${filler} \\boxed{0}`;
    },
  });
  const backend = mockBackend({ renderer, sampler });
  // Integer answers in \boxed{}: exact match scores them as mathReward would, without a worker pool whose start-up
  // on a loaded machine would decide which groups are informative.
  const reward = exactMatch({ correct: 1, wrong: -1 });
  const trainer = new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null }),
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 2,
    questionsPerBatch: 2,
    maxSteps: 2,
    shuffle: false,
    progress: false,
    ...extra,
  });
  const steps: Record<string, number>[] = [];
  trainer.on('step', (e) => steps.push(e.metrics));
  await trainer.train();
  return { backend, steps };
}

describe('Trainer algorithm options', () => {
  it('cosine schedule with warm-up: the optimizer sees the scheduled rate each step (optim/lr)', async () => {
    const { backend, steps } = await run({ maxSteps: 4, optimizer: { learningRate: 1e-3, schedule: { kind: 'cosine', warmupSteps: 1 } } });
    const want = [1e-3, 1e-3, 1e-3 * 0.5 * (1 + Math.cos(Math.PI / 3)), 1e-3 * 0.5 * (1 + Math.cos((2 * Math.PI) / 3))];
    expect(steps.map((m) => m['optim/lr'])).toEqual(want.map((x) => expect.closeTo(x, 12)));
    expect(backend.optimSteps.map((p) => p.learningRate)).toEqual(want.filter((_, i) => steps[i]!['optim/datums']! > 0).map((x) => expect.closeTo(x, 12)));
  });

  it('updatesPerBatch: minibatches × epochs optimizer steps per batch', async () => {
    const { backend, steps } = await run({
      maxSteps: 1,
      updatesPerBatch: { minibatches: 2, epochs: 3 },
      questionsPerBatch: 3,
      dynamicSampling: { maxAttempts: 1 },
    });
    // Step 1 has groups a (informative), b (degenerate), c (informative): 4 datums → 2 minibatches × 3 epochs.
    expect(steps[0]!['optim/updates']).toBe(6);
    expect(backend.optimSteps.length).toBe(6);
    // 4 datums in 3 minibatches (2, 1, 1) × 2 epochs: 6 steps (slices of ⌈4/3⌉ gave 2 slices, 4 steps); 4 datums in
    // 6 minibatches (more slices than datums): 6 × 1.
    for (const [minibatches, epochs] of [
      [3, 2],
      [6, 1],
      [4, 3],
    ] as const) {
      const r = await run({ maxSteps: 1, updatesPerBatch: { minibatches, epochs }, questionsPerBatch: 3, dynamicSampling: { maxAttempts: 1 } });
      expect(r.backend.optimSteps.length, `${minibatches} × ${epochs}`).toBe(minibatches * epochs);
    }
  });

  it('dynamicSampling refills degenerate groups from further prompts', async () => {
    const { steps } = await run({ maxSteps: 1, questionsPerBatch: 2, dynamicSampling: { maxAttempts: 3 } });
    // Batch 1 = a, b (1 informative); batch 2 = c, d (1 more) → 2 informative groups after 2 attempts.
    expect(steps[0]!['rollout/attempts']).toBe(2);
    expect(steps[0]!['rollout/refilled_groups']).toBe(1);
    expect(steps[0]!['rollout/informative_groups']).toBe(2);
    const capped = await run({ maxSteps: 1, questionsPerBatch: 2, dynamicSampling: { maxAttempts: 1 } });
    expect(capped.steps[0]!['rollout/attempts']).toBe(1);
    expect(capped.steps[0]!['rollout/informative_groups']).toBe(1);
  });

  it('dynamicSampling works with the streaming source too (refill widens its window)', async () => {
    const { steps } = await run({ maxSteps: 2, questionsPerBatch: 2, dynamicSampling: { maxAttempts: 3 }, rollout: { streaming: true } });
    // Step 1: a, b then c, d; step 2: e, f then (next epoch) a, b — two informative groups each, in two attempts.
    expect(steps.map((m) => m['rollout/informative_groups'])).toEqual([2, 2]);
    expect(steps.map((m) => m['rollout/attempts'])).toEqual([2, 2]);
  });

  it('kl to a reference: advantages shifted by −β·k1 and kl/reference_* reported', async () => {
    const renderer = await localRenderer();
    const reference = scriptedSampler({ renderer, logprob: -1.5, script: () => '' });
    const { backend, steps } = await run({ maxSteps: 1, kl: { coef: 0.1, reference, estimator: 'k1' }, skipDegenerateGroups: true });
    expect(steps[0]!['kl/reference_mean']).toBeCloseTo(0.5, 12);
    expect(steps[0]!['kl/reference_max']).toBeCloseTo(0.5, 12);
    // Group advantages are ±1; k1 = −1 − (−1.5) = 0.5 on every sampled token → A − 0.05.
    const masked = backend.forwardBackwardCalls.flatMap((c) => c.datums.flatMap((d) => d.advantages.filter((_, t) => d.mask[t] === 1)));
    expect(masked.length).toBeGreaterThan(0);
    for (const a of masked) expect([0.95, -1.05].some((x) => Math.abs(a - x) < 1e-12)).toBe(true);
    const loss = await run({ maxSteps: 1, kl: { coef: 0.1, reference, placement: 'loss', estimator: 'k3' } });
    expect(loss.backend.forwardBackwardCalls.at(-1)!.loss.kind).toBe('custom');
    expect(loss.backend.forwardBackwardCalls.at(-1)!.datums[0]!.referenceLogprobs).toBeDefined();
  });

  it('rolloutCorrection reports rollout_corr/* (ratio 1 when learner and sampler agree)', async () => {
    const { steps } = await run({ maxSteps: 1, rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 } });
    expect(steps[0]!['rollout_corr/ratio_mean']).toBe(1);
    expect(steps[0]!['rollout_corr/clipped_frac']).toBe(0);
  });

  it('overlong: the soft penalty lowers long samples’ rewards; filter masks truncated samples out', async () => {
    const plain = await run({ maxSteps: 1 }, { long: true });
    const soft = await run({ maxSteps: 1, budgets: { maxTrajectoryTokens: 200 }, overlong: { bufferTokens: 150, penalty: 1 } }, { long: true });
    expect(soft.steps[0]!['reward/mean']).toBeLessThan(plain.steps[0]!['reward/mean']!);
    const filtered = await run({ maxSteps: 1, budgets: { maxTrajectoryTokens: 60, maxTurnTokens: 60 }, overlong: { filter: true } }, { long: true });
    expect(filtered.steps[0]!['rollout/overlong_filtered']).toBeGreaterThan(0);
  });

  it('refuses invalid algorithm options with ConfigError naming them', async () => {
    const renderer = await localRenderer();
    const base = {
      backend: mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }) }),
      env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })) }),
      reward: mathReward(),
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 } as const,
      dataset,
    };
    const bad = (o: Record<string, unknown>) => {
      try {
        new Trainer({ ...base, ...o } as TrainerOptions);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).message;
      }
      return 'accepted';
    };
    expect(bad({ rolloutCorrection: { level: 'token', mode: 'truncate', cap: 0.5 } })).toMatch(/rolloutCorrection.cap/);
    expect(bad({ kl: { coef: -1 } })).toMatch(/kl.coef/);
    expect(bad({ kl: { coef: 0.1 }, sampling: { temperature: 0.7 } })).toMatch(/kl/);
    expect(bad({ dynamicSampling: { maxAttempts: 0 } })).toMatch(/dynamicSampling.maxAttempts/);
    expect(bad({ overlong: { bufferTokens: 10 } })).toMatch(/overlong/);
    expect(bad({ optimizer: { learningRate: 1e-3, schedule: { kind: 'step' } } })).toMatch(/optimizer.schedule.kind/);
    expect(bad({ updatesPerBatch: { epochs: 0 } })).toMatch(/updatesPerBatch.epochs/);
    expect(bad({ distill: { teacher: {}, coef: 1 } })).toMatch(/distill.teacher/);
    expect(bad({ entropyBonus: { coef: -0.1 } })).toMatch(/entropyBonus.coef/);
    expect(bad({ entropyBonus: { coef: 0.01, extra: 1 } })).toMatch(/entropyBonus/);
    await base.reward.close();
  });

  it('entropyBonus is refused, naming why, where the learner has no full distribution or the loss runs as a custom loss', async () => {
    const renderer = await localRenderer();
    const reward = mathReward();
    const common = { env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })) }), reward, dataset, entropyBonus: { coef: 0.01 } };
    const attempt = (o: Record<string, unknown>) => {
      try {
        new Trainer({ ...common, loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, ...o } as unknown as TrainerOptions);
        return 'accepted';
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).message;
      }
    };
    // A backend that returns target logprobs only (no learnerEntropy), e.g. a Tinker server.
    const mock = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }) });
    expect(attempt({ backend: mock })).toMatch(/entropyBonus.*full next-token distribution/);
    const remote = tinkerBackend({
      baseUrl: 'http://127.0.0.1:9',
      baseModel: 'agentrl/local',
      renderer: fileURLToPath(new URL('../../assets/local-model', import.meta.url)),
      maxContextTokens: 128,
    });
    expect(attempt({ backend: remote })).toMatch(/entropyBonus.*backend 'tinker'/);
    // coef 0 is no bonus: accepted anywhere.
    expect(attempt({ backend: mock, entropyBonus: { coef: 0 } })).toBe('accepted');
    const local = localBackend({ layers: 1, dModel: 16, heads: 2, contextTokens: 64 });
    expect(attempt({ backend: local })).toBe('accepted');
    expect(attempt({ backend: local, loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 } })).toMatch(/entropyBonus.*'gspo' runs as a custom loss/);
    expect(attempt({ backend: local, kl: { coef: 0.1, placement: 'loss' } })).toMatch(/entropyBonus.*kl.placement 'loss'/);
    await local.close();
    await remote.close();
    await reward.close();
  });
});
