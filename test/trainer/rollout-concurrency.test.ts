import { describe, expect, it } from 'vitest';
import { Trainer, type Environment, type Example, type Reward, type TrainerOptions } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Every trajectory answers at once; `env.step` holds each one until `wave` trajectories are in flight together (or
 * every trajectory of the run has entered), then yields a few turns of the event loop so that any trajectory a broken
 * limit let through would enter too, and records the most seen at once.
 */
async function run(mode: 'streaming' | 'sync', rollout: TrainerOptions['rollout'], wave: number, total = 8) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample}}` });
  const seen = { now: 0, max: 0, entered: 0 };
  const env: Environment = {
    name: 'waves',
    tools: [],
    initialMessages: (ex) => [{ role: 'user', content: ex.question }],
    step: async () => {
      seen.max = Math.max(seen.max, ++seen.now);
      seen.entered++;
      try {
        while (seen.now < wave && seen.entered < total) await tick();
        for (let i = 0; i < 20; i++) await tick();
      } finally {
        seen.now--;
      }
      return { done: true };
    },
  };
  const reward: Reward = () => ({ reward: 0, correct: false, validFormat: true });
  const dataset: Example[] = Array.from({ length: total / 2 }, (_, i) => ({ id: `q${i}`, question: `question ${i}`, answer: '0' }));
  const t = new Trainer({
    backend: mockBackend({ renderer, sampler }),
    env,
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 2,
    questionsPerBatch: total / 2,
    maxSteps: 1,
    shuffle: false,
    progress: false,
    skipDegenerateGroups: false,
    rollout: { ...rollout, streaming: mode === 'streaming' },
  });
  const summary = await t.train();
  expect(summary.lastMetrics['rollout/trajectories']).toBe(total);
  return seen.max;
}

// Hazard: an option read by one mode only silently does nothing in the other (both limits used to be mode-specific).
describe.each(['streaming', 'sync'] as const)('rollout concurrency limits (%s)', (mode) => {
  it('without limits, every group of the step is in flight together', async () => {
    expect(await run(mode, {}, 8)).toBe(8);
  });

  it.each([1, 2, 3])('maxConcurrentGroups %i bounds the groups in flight', async (groups) => {
    expect(await run(mode, { maxConcurrentGroups: groups }, 2 * groups)).toBe(2 * groups);
  });

  it.each([2, 4, 6])('maxConcurrentTrajectories %i bounds the trajectories in flight (whole groups of 2)', async (n) => {
    expect(await run(mode, { maxConcurrentTrajectories: n }, n)).toBe(n);
  });

  it('a limit below groupSize runs one group at a time', async () => {
    expect(await run(mode, { maxConcurrentTrajectories: 1 }, 2)).toBe(2);
  });

  it('both limits together: the tighter one holds', async () => {
    expect(await run(mode, { maxConcurrentGroups: 3, maxConcurrentTrajectories: 4 }, 4)).toBe(4);
    expect(await run(mode, { maxConcurrentGroups: 1, maxConcurrentTrajectories: 6 }, 2)).toBe(2);
  });
});
