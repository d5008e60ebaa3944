import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, Trainer, TrainerBusyError, defineTool, isAgentRLError, plotRuns, toolEnvironment, type Reward } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

// Hazard: a user mistake thrown as a plain Error cannot be told apart from a bug by code or isAgentRLError.
describe('user mistakes throw typed agentrl errors', () => {
  const tool = (name: string) => defineTool({ name, description: 'd', inputSchema: z.object({ x: z.string() }), execute: async () => 'ok' });

  it.each(['', '1abc', 'has space', 'x'.repeat(65), 'dot.name'])('defineTool refuses the name %j with ConfigError', (name) => {
    expect(() => tool(name)).toThrow(ConfigError);
  });

  it('toolEnvironment refuses two tools of one name with ConfigError', () => {
    expect(() => toolEnvironment({ name: 'e', tools: [tool('a'), tool('a')], initialMessages: () => [] } as never)).toThrow(ConfigError);
  });

  it('plotRuns refuses no run directory and a missing or empty one with ConfigError', async () => {
    await expect(plotRuns([])).rejects.toBeInstanceOf(ConfigError);
    const empty = await mkdtemp(join(tmpdir(), 'agentrl-plot-'));
    for (const dir of [join(empty, 'missing'), empty]) {
      const err = await plotRuns([dir], { outDir: join(empty, 'out') }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isAgentRLError(err), dir).toBe(true);
    }
  });

  it('a second train() while one runs is TrainerBusyError', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    const reward: Reward = () => ({ reward: 0, correct: false, validFormat: true });
    const t = new Trainer({
      backend: mockBackend({ renderer, sampler }),
      env: { name: 'e', tools: [], initialMessages: () => [{ role: 'user', content: 'q' }], step: async () => ({ done: true }) },
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'a', question: 'q', answer: '1' }],
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 1,
      progress: false,
    });
    const first = t.train();
    const second = await t.train().then(
      () => undefined,
      (e: unknown) => e,
    );
    await first;
    expect(second).toBeInstanceOf(TrainerBusyError);
    expect((second as TrainerBusyError).code).toBe('TRAINER_BUSY');
  });
});
