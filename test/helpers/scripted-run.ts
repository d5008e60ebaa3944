import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Trainer, codeInterpreter, mathReward } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from './local-renderer.js';

/**
 * Runs a small Trainer without a model: sample 0 of each group calls the interpreter then answers right,
 * the others answer wrong at once. Returns the logDir (metrics.jsonl, trajectories.jsonl, config.json).
 */
export async function scriptedRun(opts: { steps: number; logDir?: string; perStep?: number }): Promise<string> {
  const logDir = opts.logDir ?? (await mkdtemp(join(tmpdir(), 'agentrl-run-')));
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt, call, sample }) => {
      if (prompt.includes('<tool_response>')) return 'The interpreter says 12, so \\boxed{12}';
      return call >= 0 && sample === 0 ? toolCall('print(3 * 4)') : 'I think \\boxed{11}';
    },
  });
  const reward = mathReward();
  const trainer = new Trainer({
    backend: mockBackend({ renderer, sampler }),
    env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '12\n' })), systemPrompt: null }),
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: [
      { id: 'a', question: 'What is 3 * 4?', answer: '12' },
      { id: 'b', question: 'What is 6 + 6?', answer: '12' },
    ],
    groupSize: 3,
    questionsPerBatch: 2,
    maxSteps: opts.steps,
    logDir,
    ...(opts.perStep === undefined ? {} : { trajectoryLog: { perStep: opts.perStep } }),
    progress: false,
  });
  try {
    await trainer.train();
  } finally {
    await reward.close();
  }
  return logDir;
}
