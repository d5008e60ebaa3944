import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, defineLoss, localBackend, tinkerBackend, type TrainingBackend, type Reward } from 'agentrl';
import { fakeSandbox } from 'agentrl/testing';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import type { TrainerOptions } from '../../src/trainer/options.js';

const MODEL = { layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 3 };
const dataset = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) }));
/** Random weights say nothing useful; the parity of the sampled token ids keeps most groups informative. */
const parity: Reward = (t) => {
  const even = (t.turns[0]?.completionTokens ?? []).reduce((a, b) => a + b, 0) % 2 === 0;
  return { reward: even ? 1 : -1, correct: even, validFormat: true };
};

let serve: ServeApp | undefined;
afterAll(async () => serve?.close());

async function train(backend: TrainingBackend, extra: Partial<TrainerOptions>): Promise<Record<string, number>[]> {
  const trainer = new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null }),
    reward: parity,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 4,
    questionsPerBatch: 2,
    maxSteps: 2,
    budgets: { maxToolCalls: 1, maxTurns: 2, maxTrajectoryTokens: 96, maxTurnTokens: 16, maxToolResponseTokens: 16 },
    optimizer: { learningRate: 1e-3, schedule: { kind: 'cosine', warmupSteps: 1 } },
    progress: false,
    ...extra,
  });
  const steps: Record<string, number>[] = [];
  trainer.on('step', (e) => steps.push(e.metrics));
  await trainer.train();
  await backend.close();
  return steps;
}

const ALGORITHMS: Partial<TrainerOptions> = {
  kl: { coef: 0.05, estimator: 'k3' },
  rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 },
  dynamicSampling: { maxAttempts: 2 },
  overlong: { bufferTokens: 32, penalty: 0.5 },
  updatesPerBatch: { minibatches: 2, epochs: 1 },
};
const KEYS = [
  'kl/reference_mean',
  'kl/reference_max',
  'rollout_corr/ratio_mean',
  'rollout_corr/clipped_frac',
  'rollout_corr/masked_frac',
  'rollout/attempts',
  'rollout/refilled_groups',
  'optim/lr',
  'optim/updates',
  'optim/clip_frac_last',
  'optim/entropy_sampled',
  'optim/kl_sample_train',
];

describe('the algorithm options on both backends, with the same metrics', () => {
  const remote = async (): Promise<TrainingBackend> => {
    serve ??= createServeApp({ port: 0, model: MODEL });
    return tinkerBackend({
      baseUrl: await serve.listen(),
      baseModel: 'agentrl/local',
      renderer: fileURLToPath(new URL('../../assets/local-model', import.meta.url)),
      maxContextTokens: MODEL.contextTokens,
      retry: { tryAgainDelayMs: 0 },
    });
  };

  it('kl + rolloutCorrection + dynamicSampling + overlong + cosine + updatesPerBatch: embedded engine and tinkerBackend → agentrl serve', async () => {
    const local = await train(localBackend(MODEL), ALGORITHMS);
    const served = await train(await remote(), ALGORITHMS);
    for (const steps of [local, served]) {
      expect(steps).toHaveLength(2);
      for (const k of KEYS) for (const m of steps) expect(m[k], k).toEqual(expect.any(Number));
      // The learner and the sampler are the same engine here: the correction ratio is 1 up to float32 rounding.
      expect(Math.abs(steps[0]!['rollout_corr/ratio_mean']! - 1)).toBeLessThan(1e-3);
      expect(steps[0]!['optim/lr']).toBeCloseTo(1e-3, 12);
    }
    expect(
      Object.keys(served[0]!)
        .filter((k) => KEYS.includes(k))
        .sort(),
    ).toEqual(
      Object.keys(local[0]!)
        .filter((k) => KEYS.includes(k))
        .sort(),
    );
    // The full-vocabulary entropy needs the logits: the embedded engine reports it; over the Tinker wire (target
    // logprobs only) it is absent rather than estimated under the same name.
    for (const m of local) expect(m['optim/entropy']).toBeGreaterThan(0);
    for (const m of served) expect(m).not.toHaveProperty('optim/entropy');
  });

  it('gspo and a user-defined loss train through the Trainer on both backends', async () => {
    const reinforce = defineLoss({ name: 'reinforce', level: 'token', perToken: (s) => s.targetLogprobs.map((lp, t) => -lp * s.advantages[t]!) });
    for (const make of [async () => localBackend(MODEL), remote]) {
      for (const extra of [
        { loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1, aggregation: 'sequence-mean' }, kl: { coef: 0.05, placement: 'loss', estimator: 'k2' } },
        { loss: { kind: 'custom', loss: reinforce } },
      ] as Partial<TrainerOptions>[]) {
        const steps = await train(await make(), { ...extra, maxSteps: 1 });
        expect(steps[0]!['optim/datums']).toBeGreaterThan(0);
        expect(Number.isFinite(steps[0]!['optim/loss'])).toBe(true);
        expect(steps[0]!['optim/grad_norm']).toBeGreaterThan(0);
      }
    }
  });
});
