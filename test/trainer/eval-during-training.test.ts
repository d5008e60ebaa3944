import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, mathReward, type EvalEvent } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

/** Hazard: a held-out curve that is configured but never computed (the `eval` event was typed and never emitted). */
describe('evaluation during training', () => {
  it('runs evaluate() before the first update and every N steps, emits eval and writes eval/* into the step metrics', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt, sample }) => (prompt.includes('held-out') && sample % 2 === 0 ? '\\boxed{4}' : '\\boxed{5}'),
    });
    const reward = mathReward();
    const trainer = new Trainer({
      backend: mockBackend({ renderer, sampler }),
      env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 't', question: 'train 2+2', answer: '4' }],
      eval: {
        dataset: [
          { id: 'h1', question: 'held-out 2+2', answer: '4' },
          { id: 'h2', question: 'held-out 1+3', answer: '4' },
        ],
        every: 2,
        samples: 4,
      },
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 4,
      progress: false,
    });
    const evals: EvalEvent[] = [];
    const stepMetrics: Record<string, number>[] = [];
    trainer.on('eval', (e) => evals.push(e));
    trainer.on('step', (e) => stepMetrics.push({ ...e.metrics }));
    try {
      await trainer.train();
    } finally {
      await reward.close();
    }
    expect(evals.map((e) => e.step)).toEqual([0, 2, 4]);
    // Samples 0 and 2 of each problem are right: Average@4 = 0.5, Pass@4 = 1.
    // Step 0 is evaluated before any update (and is the reward's first use: its math checker may be cold, so only the shape is checked there).
    expect(evals[0]!.metrics).toMatchObject({ 'eval/n': 4, 'eval/problems': 2 });
    expect(evals[1]!.metrics['eval/average_at_n']).toBe(0.5);
    expect(evals[1]!.metrics['eval/pass_at_n']).toBe(1);
    expect(stepMetrics[1]!['eval/average_at_n']).toBe(0.5);
    expect(stepMetrics[0]!['eval/average_at_n']).toBeUndefined();
  });

  it('writes the step-0 eval point to metrics.jsonl and the run name to config.json', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: ({ sample }) => (sample === 0 ? '\\boxed{4}' : '\\boxed{5}') });
    const reward = mathReward();
    const logDir = await mkdtemp(join(tmpdir(), 'agentrl-eval0-'));
    const make = (extra: { runName?: string }) =>
      new Trainer({
        backend: mockBackend({ renderer, sampler }),
        env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
        reward,
        loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
        dataset: [{ id: 't', question: 'train 2+2', answer: '4' }],
        eval: { dataset: [{ id: 'h1', question: 'held-out 2+2', answer: '4' }], every: 3, samples: 2 },
        groupSize: 2,
        questionsPerBatch: 1,
        maxSteps: 3,
        progress: false,
        logDir,
        ...extra,
      });
    try {
      const trainer = make({ runName: 'calendar agent, seed 1' });
      expect(trainer.options.runName).toBe('calendar agent, seed 1');
      await trainer.train();
      const rows = (await readFile(join(logDir, 'metrics.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>);
      expect(rows.map((r) => r['step'])).toEqual([0, 1, 2, 3]);
      expect(typeof rows[0]!['eval/average_at_n']).toBe('number');
      expect(rows[0]!['reward/mean']).toBeUndefined(); // no training metrics before the first update
      expect(rows[3]!['eval/average_at_n']).toBe(0.5);
      const config = JSON.parse(await readFile(join(logDir, 'config.json'), 'utf8')) as { runName: string };
      expect(config.runName).toBe('calendar agent, seed 1');
      expect(make({}).options.runName).toMatch(/ · ppo · 1×2 · lr 4e-5$/);
      expect(() => make({ runName: '   ' })).toThrow(/runName/);
    } finally {
      await reward.close();
    }
  });
});
