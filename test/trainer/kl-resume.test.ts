import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, localBackend, type Reward, type WarningEvent } from 'agentrl';
import { fakeSandbox } from 'agentrl/testing';
import type { TrainerOptions } from '../../src/trainer/options.js';

const MODEL = { layers: 1, dModel: 32, heads: 2, contextTokens: 128, seed: 3 };
const dataset = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) }));
/** Random weights say nothing useful; the parity of the sampled token ids keeps most groups informative. */
const parity: Reward = (t) => {
  const even = (t.turns[0]?.completionTokens ?? []).reduce((a, b) => a + b, 0) % 2 === 0;
  return { reward: even ? 1 : -1, correct: even, validFormat: true };
};

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function train(logDir: string, maxSteps: number, extra: Partial<TrainerOptions> = {}) {
  const backend = localBackend(MODEL);
  const trainer = new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null }),
    reward: parity,
    loss: { kind: 'importance_sampling' },
    dataset,
    groupSize: 4,
    questionsPerBatch: 2,
    maxSteps,
    budgets: { maxToolCalls: 1, maxTurns: 2, maxTrajectoryTokens: 96, maxTurnTokens: 16, maxToolResponseTokens: 16 },
    optimizer: { learningRate: 2e-2 },
    kl: { coef: 0.05, reference: 'base', estimator: 'k1' },
    logDir,
    checkpointEvery: 1,
    progress: false,
    ...extra,
  });
  const steps: Record<string, number>[] = [];
  const warnings: WarningEvent[] = [];
  trainer.on('step', (e) => steps.push(e.metrics));
  trainer.on('warning', (w) => warnings.push(w));
  await trainer.train();
  await backend.close();
  return { steps, warnings };
}

describe("kl.reference 'base' across resume", () => {
  it('a resumed run computes the KL to the original base weights, as the uninterrupted run does at that step', async () => {
    const straight = await mkdtemp(join(tmpdir(), 'agentrl-kl-straight-'));
    const split = await mkdtemp(join(tmpdir(), 'agentrl-kl-split-'));
    dirs.push(straight, split);
    const full = await train(straight, 3);
    const first = await train(split, 1);
    expect(first.steps[0]!['kl/reference_mean']).toBeCloseTo(full.steps[0]!['kl/reference_mean']!, 6);
    const state = JSON.parse(await readFile(join(split, 'checkpoints', 'step-00001', 'trainer-state.json'), 'utf8')) as { klReference?: string };
    expect(state.klReference).toBe(join('..', 'kl-reference'));
    expect(existsSync(join(split, 'checkpoints', 'kl-reference', 'backend'))).toBe(true);
    // Resume twice (1 → 2 → 3): the checkpoints written by a resumed run carry the reference on.
    const second = await train(split, 2, { resume: 'latest' });
    const third = await train(split, 3, { resume: 'latest' });
    expect(second.warnings.filter((w) => w.code === 'kl_reference_resumed')).toEqual([]);
    for (const [got, k] of [
      [second.steps[0]!, 1],
      [third.steps[0]!, 2],
    ] as const) {
      const want = full.steps[k]!;
      // After updates the policy has moved away from the base: the KL is not 0 (it would be ≈ 0 to the resumed weights).
      expect(Math.abs(want['kl/reference_max']!)).toBeGreaterThan(1e-3);
      expect(got['kl/reference_mean']).toBeCloseTo(want['kl/reference_mean']!, 6);
      expect(got['kl/reference_max']).toBeCloseTo(want['kl/reference_max']!, 6);
    }
  });

  it('a checkpoint without the recorded reference resumes with a warning that the KL is to the resumed weights', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-kl-old-'));
    dirs.push(dir);
    await train(dir, 1, { kl: undefined });
    const resumed = await train(dir, 2, { resume: 'latest' });
    expect(resumed.warnings.map((w) => w.code)).toContain('kl_reference_resumed');
    // The reference is the resumed weights, which sampled this step: the per-token KL is 0 up to float rounding.
    expect(Math.abs(resumed.steps[0]!['kl/reference_max']!)).toBeLessThan(1e-3);
  });
});
