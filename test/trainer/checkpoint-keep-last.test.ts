import { describe, expect, it } from 'vitest';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Trainer, type Reward } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

// Hazard: the Trainer builds its checkpoint store with a fixed count and checkpointKeepLast does nothing.
describe('checkpointKeepLast', () => {
  it.each([1, 2, 4])('keeps the newest %i checkpoints of a run that saved one per step', async (keep) => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample}}` });
    const reward: Reward = (t) => ({ reward: t.finalText.includes('{0}') ? 1 : 0, correct: false, validFormat: true });
    const logDir = await mkdtemp(join(tmpdir(), 'agentrl-keep-'));
    await new Trainer({
      backend: mockBackend({ renderer, sampler }),
      env: { name: 'answer', tools: [], initialMessages: (ex) => [{ role: 'user', content: ex.question }], step: async () => ({ done: true }) },
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'a', question: 'q', answer: '0' }],
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 5,
      progress: false,
      logDir,
      checkpointEvery: 1,
      checkpointKeepLast: keep,
    }).train();
    const dirs = (await readdir(join(logDir, 'checkpoints'))).filter((d) => d.startsWith('step-')).sort();
    expect(dirs).toEqual(['step-00001', 'step-00002', 'step-00003', 'step-00004', 'step-00005'].slice(5 - keep));
  });
});
