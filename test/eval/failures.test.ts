import { describe, expect, it } from 'vitest';
import { codeInterpreter, evaluate, BackendInputError, type Environment, type Reward, type RewardResult, type SamplingClient } from 'agentrl';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const reward: Reward = (t, ex) => {
  const m = /\\boxed\{([^}]*)\}/.exec(t.finalText);
  const ok = m?.[1] === ex.answer;
  return { reward: ok ? 1 : -1, correct: ok, validFormat: m !== null };
};
const examples = [
  { id: 'a', question: 'problem a', answer: '7' },
  { id: 'b', question: 'problem b', answer: '7' },
];

describe('evaluate survives bad trajectories', () => {
  it('initialMessages throwing for one problem: evaluate resolves, that problem counts wrong, eval/error_rate says so', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{7}' });
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const env: Environment = {
      ...inner,
      initialMessages: (e) => {
        if (e.id === 'b') throw new Error('bad problem');
        return inner.initialMessages(e);
      },
    };
    const r = await evaluate({ sampler, renderer, env, reward, examples, n: 2 });
    expect(r.metrics['eval/error_rate']).toBe(0.5);
    expect(r.metrics['eval/average_at_n']).toBe(0.5);
    expect(r.records[1]!.correct).toEqual([false, false]);
  });

  it('caps budgets at the sampler context instead of failing mid-eval on an over-long prompt', async () => {
    // Hazard: maxTrajectoryTokens above the model's context made the sampler throw in the middle of an evaluation.
    const renderer = await localRenderer();
    const inner = scriptedSampler({ renderer, script: () => toolCall('print("' + 'z'.repeat(40) + '")') });
    const context = 300;
    const sampler: SamplingClient = {
      ...inner,
      maxContextTokens: context,
      sample: async (p, params) => {
        if (p.length + params.maxTokens > context) throw new BackendInputError('promptTokens', 'longer than the context');
        return inner.sample(p, params);
      },
    };
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const r = await evaluate({
      sampler,
      renderer,
      env,
      reward,
      examples,
      n: 2,
      budgets: { maxToolCalls: 50, maxTurns: 50, maxTrajectoryTokens: 4096, maxTurnTokens: 128 },
    });
    expect(r.metrics['eval/error_rate']).toBe(0);
    expect(r.metrics['eval/tool_calls']).toBeGreaterThan(0);
  });

  it('a reward that never resolves times out (counted wrong); abort ends evaluate promptly', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{7}' });
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const hangsOnB: Reward = (t, ex) => (ex.id === 'b' ? new Promise<RewardResult>(() => {}) : reward(t, ex));
    const r = await evaluate({ sampler, renderer, env, reward: hangsOnB, examples, n: 1, rewardTimeoutMs: 30 });
    expect(r.metrics['eval/average_at_n']).toBe(0.5);
    expect(r.metrics['eval/error_rate']).toBe(0.5);

    const ac = new AbortController();
    let entered = false;
    const hung: Reward = () => ((entered = true), new Promise<RewardResult>(() => {}));
    const run = evaluate({ sampler, renderer, env, reward: hung, examples, n: 1, rewardTimeoutMs: 1e9, signal: ac.signal });
    while (!entered) await new Promise((res) => setImmediate(res));
    ac.abort(new Error('user stop'));
    await expect(run).rejects.toThrow('user stop');
  });
});
