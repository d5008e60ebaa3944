import { describe, expect, it } from 'vitest';
import { codeInterpreter, evaluate, mathReward, type Reward } from 'agentrl';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

describe('evaluate: format rate and the ending rule', () => {
  // Hazard (issue 13 §1): a reply that boxes the answer and then writes a second tool call ended `invalid` and was
  // counted (and rewarded) as a well-formatted correct answer.
  it('counts only valid endings in eval/format_rate and never credits an invalid ending', async () => {
    const renderer = await localRenderer();
    const invalid = `The sum is \\boxed{12}. ${toolCall('print(12)')}${toolCall('print(13)')}`;
    const sampler = scriptedSampler({ renderer, script: ({ sample }) => [invalid, 'So \\boxed{12}'][sample]! });
    // A custom reward that forgets the rule: it says validFormat true whenever it finds a box.
    const naive: Reward = (t, ex) => {
      const ok = t.finalText.includes(`\\boxed{${ex.answer}}`);
      return { reward: ok ? 1 : -1, correct: ok, validFormat: t.finalText.includes('\\boxed{') };
    };
    const base = {
      sampler,
      renderer,
      env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
      examples: [{ id: 'a', question: 'sum?', answer: '12' }],
      n: 2,
    };
    const withNaive = await evaluate({ ...base, reward: naive });
    expect(withNaive.metrics['eval/format_rate']).toBe(0.5);
    const math = mathReward({ inThread: true });
    const withMath = await evaluate({ ...base, reward: math });
    expect(withMath.records[0]!.correct).toEqual([false, true]);
    expect(withMath.records[0]!.rewards).toEqual([-1, 1]);
    expect(withMath.metrics['eval/format_rate']).toBe(0.5);
  });
});
