// Issue 24 §4: every trajectory owns its messages from the moment it is created, whatever the environment does
// with its arrays — in the round-synchronous and the streaming path, and for trajectories that end before a turn.
import { describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, runRollouts, DEFAULT_BUDGETS, type Environment, type Example, type Message, type Trajectory } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const examples: Example[] = ['alpha', 'bravo', 'charlie'].map((id) => ({ id, question: `question ${id}`, answer: '1' }));

/** A code interpreter that hands out ONE array, rewritten for every example (and again right after it returns). */
function reusingEnv(opts: { scribbleAfter?: boolean } = {}): Environment {
  const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
  const shared: Message[] = [];
  return {
    ...inner,
    initialMessages(example) {
      shared.length = 0;
      shared.push(...inner.initialMessages(example));
      if (opts.scribbleAfter) queueMicrotask(() => shared.push({ role: 'user', content: 'SCRIBBLED' }));
      return shared;
    },
  };
}

const questionOf = (t: Trajectory) => t.messages.find((m) => m.role === 'user')?.content;

describe('trajectories own their messages', () => {
  it('runRollouts (round-synchronous): each group keeps its own question although the env reuses one array', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    const env = reusingEnv({ scribbleAfter: true });
    const groups = await runRollouts({ sampler, renderer, env, budgets: DEFAULT_BUDGETS, maxConcurrentGroups: 3 }, examples, 2);
    groups.forEach((g, i) => {
      for (const t of g) {
        expect(questionOf(t)).toContain(examples[i]!.question);
        expect(t.messages.some((m) => m.content === 'SCRIBBLED')).toBe(false);
      }
    });
  });

  it('a prompt over budget: the zero-turn trajectories of a group hold separate arrays, not the env\u2019s', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    const env = reusingEnv();
    const [group] = await runRollouts({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTrajectoryTokens: 3 } }, [examples[0]!], 3);
    expect(group!.map((t) => t.stopReason)).toEqual(['max_trajectory_tokens', 'max_trajectory_tokens', 'max_trajectory_tokens']);
    (group![0]!.messages as Message[]).push({ role: 'user', content: 'only mine' });
    expect(group![1]!.messages).not.toBe(group![0]!.messages);
    expect(group![1]!.messages.some((m) => m.content === 'only mine')).toBe(false);
    expect(group![2]!.messages.some((m) => m.content === 'only mine')).toBe(false);
    env.initialMessages(examples[1]!); // the env rewrites its array for the next example
    for (const t of group!) expect(questionOf(t)).toContain(examples[0]!.question);
  });

  for (const streaming of [false, true]) {
    it(`Trainer (${streaming ? 'streaming' : 'round-synchronous'}): trajectory events show each group\u2019s own question`, async () => {
      const renderer = await localRenderer();
      const sampler = scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample % 2}}` });
      const seen: Trajectory[] = [];
      const t = new Trainer({
        backend: mockBackend({ renderer, sampler }),
        env: reusingEnv({ scribbleAfter: true }),
        reward: (traj) => ({ reward: traj.finalText.includes('{1}') ? 1 : -1, correct: false, validFormat: true }),
        loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
        dataset: examples,
        groupSize: 2,
        questionsPerBatch: 3,
        maxSteps: 1,
        shuffle: false,
        progress: false,
        rollout: { streaming },
      });
      t.on('trajectory', (e) => seen.push(e.trajectory));
      await t.train();
      expect(seen).toHaveLength(6);
      for (const traj of seen) {
        expect(questionOf(traj)).toContain(traj.example.question);
        expect(traj.messages.some((m) => m.content === 'SCRIBBLED')).toBe(false);
      }
    });
  }
});
