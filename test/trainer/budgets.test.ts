import { describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, type Reward, type WarningEvent } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

/** Hazard: a trajectory budget larger than the model's context makes the backend reject an over-long prompt mid-run. */
describe('Trainer budgets', () => {
  it('caps a maxTrajectoryTokens set over the backend context, with a warning', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => toolCall('print("' + 'z'.repeat(40) + '")') });
    const reward: Reward = () => ({ reward: -1, correct: false, validFormat: false });
    const trainer = new Trainer({
      backend: mockBackend({ renderer, sampler, maxContextTokens: 300 }),
      env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'a', question: 'q', answer: '1' }],
      groupSize: 2,
      questionsPerBatch: 1,
      maxSteps: 1,
      budgets: { maxToolCalls: 50, maxTurns: 50, maxTrajectoryTokens: 8192 }, // set explicitly: an unset budget fits the context silently
      progress: false,
    });
    const warnings: WarningEvent[] = [];
    trainer.on('warning', (w) => warnings.push(w));
    let longest = 0;
    trainer.on('trajectory', (e) => {
      const last = e.trajectory.turns.at(-1)!;
      longest = Math.max(longest, last.promptTokens.length + last.completionTokens.length);
      expect(e.trajectory.stopReason).toBe('max_trajectory_tokens');
    });
    await trainer.train();
    expect(warnings.map((w) => w.code)).toContain('budget_capped');
    expect(longest).toBeLessThanOrEqual(300);
  });
});
