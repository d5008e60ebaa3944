import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Trainer, ConfigError, defineTool, toolEnvironment, isInformativeGroup, responseTokens, overlongPenalty, type Example, type Reward } from 'agentrl';
import { mockBackend, scriptedSampler, type Script } from 'agentrl/testing';
import type { TrainerOptions } from '../../src/trainer/options.js';
import { localRenderer } from '../helpers/local-renderer.js';

const call = (args: unknown) => `<tool_call>\n{"name": "lookup", "arguments": ${JSON.stringify(args)}}\n</tool_call>`;

/** A tool whose observation is long (`obs` characters): it must not count in the response length. */
function env(obs: number) {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a fact up.',
    inputSchema: z.object({ q: z.string() }),
    execute: () => `fact ${'x'.repeat(obs)}`,
  });
  return toolEnvironment({ name: 'facts', tools: [lookup], initialMessages: (ex) => [{ role: 'user', content: ex.question }] });
}

/** Sample 0 calls the tool once then answers with a `pad`-character answer; sample 1 answers at once, briefly. */
const answerScript =
  (pad: number): Script =>
  ({ prompt, sample }) => {
    if (sample === 1 && !prompt.includes('<tool_response>')) return '\\boxed{1}';
    if (!prompt.includes('<tool_response>')) return call({ q: 'n' });
    return `${'w'.repeat(pad)} \\boxed{1}`;
  };

async function run(extra: Partial<TrainerOptions>, o: { question: number; obs: number; pad: number; reward?: Reward; dataset?: Example[]; script?: Script }) {
  const renderer = await localRenderer();
  const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: o.script ?? answerScript(o.pad) }) });
  const dataset = o.dataset ?? [{ id: 'q', question: `${'Q'.repeat(o.question)} What is 0 + 1?`, answer: '1' }];
  const trainer = new Trainer({
    backend,
    env: env(o.obs),
    reward: o.reward ?? (() => ({ reward: 1, correct: true, validFormat: true })),
    loss: { kind: 'importance_sampling' },
    dataset,
    groupSize: 2,
    questionsPerBatch: 1,
    maxSteps: 1,
    shuffle: false,
    progress: false,
    budgets: { maxTrajectoryTokens: 4000, maxTurnTokens: 1000, maxToolResponseTokens: 1000 },
    ...extra,
  });
  const rewards: { id: string; reward: number; response: number }[] = [];
  trainer.on('trajectory', (e) => rewards.push({ id: e.trajectory.id, reward: e.reward.reward, response: responseTokens(e.trajectory) }));
  const steps: Record<string, number>[] = [];
  trainer.on('step', (e) => steps.push(e.metrics));
  await trainer.train();
  return { rewards, steps };
}

// Hazard (issue 37 §2): the soft overlong penalty measured the last turn's prompt + completion against
// maxTrajectoryTokens, so the same answer was punished under a long question (or after a long tool output) and not
// under a short one. DAPO eq. 13, verl, SkyRL #755: the response — the sampled tokens — against a response budget.
describe('DAPO soft overlong penalty: measured on the response', () => {
  it('the same answers get the same penalty whatever the question and the tool observations', async () => {
    const overlong = { bufferTokens: 100, penalty: 1, maxResponseTokens: 200 };
    const runs = [];
    for (const [question, obs] of [
      [10, 10],
      [900, 10],
      [10, 900],
      [1500, 1200],
    ] as const)
      runs.push(await run({ overlong }, { question, obs, pad: 140 }));
    const base = runs[0]!;
    // Sample 0: a tool call (~45 tokens) + a 140-character answer: inside the buffer; sample 1: a short answer.
    expect(base.rewards[0]!.reward).toBeLessThan(1);
    expect(base.rewards[0]!.reward).toBeGreaterThan(0);
    expect(base.rewards[1]!.reward).toBe(1);
    for (const r of runs) {
      expect(r.rewards.map((x) => x.reward)).toEqual(base.rewards.map((x) => x.reward));
      expect(r.rewards.map((x) => x.response)).toEqual(base.rewards.map((x) => x.response));
      expect(r.steps[0]!['reward/overlong_penalty_mean']).toBeCloseTo(base.steps[0]!['reward/overlong_penalty_mean']!, 12);
    }
    const want = base.rewards.map((x) => overlongPenalty(x.response, 200, 100, 1));
    expect(base.rewards.map((x) => x.reward - 1)).toEqual(want.map((w) => expect.closeTo(w, 12)));
    expect(base.steps[0]!['reward/overlong_penalty_mean']).toBeCloseTo((want[0]! + want[1]!) / 2, 12);
  });

  it('the budget defaults to budgets.maxTrajectoryTokens, measured on the response only; past the budget the penalty is −penalty', async () => {
    // A 3000-character question and a 600-character answer under maxTrajectoryTokens 5000, buffer 4000: the old
    // measure (last prompt + completion ≈ 3700 tokens) was deep in the buffer (≈ −1.35); the response (~630) is not.
    const r = await run(
      { budgets: { maxTrajectoryTokens: 5000, maxTurnTokens: 1000, maxToolResponseTokens: 1000 }, overlong: { bufferTokens: 4000, penalty: 2 } },
      { question: 3000, obs: 10, pad: 600 },
    );
    expect(r.rewards[0]!.response).toBeLessThan(1000);
    expect(r.rewards.map((x) => x.reward)).toEqual([1, 1]);
    // The same answer 1100 characters long is inside the buffer of the default budget.
    const longer = await run(
      { budgets: { maxTrajectoryTokens: 5000, maxTurnTokens: 2000, maxToolResponseTokens: 1000 }, overlong: { bufferTokens: 4000, penalty: 2 } },
      { question: 3000, obs: 10, pad: 1100 },
    );
    const L = longer.rewards[0]!.response;
    expect(L).toBeGreaterThan(1000);
    expect(longer.rewards[0]!.reward).toBeCloseTo(1 + overlongPenalty(L, 5000, 4000, 2), 12);
    const past = await run({ overlong: { bufferTokens: 50, penalty: 0.5, maxResponseTokens: 120 } }, { question: 10, obs: 10, pad: 300 });
    expect(past.rewards[0]!.reward).toBe(0.5);
    expect(past.steps[0]!['reward/overlong_penalty_mean']).toBeCloseTo(-0.25, 12);
  });

  it('reward/overlong_penalty_mean is emitted (0) when no sample is long, and absent without the soft penalty', async () => {
    const r = await run({ overlong: { bufferTokens: 100, penalty: 1, maxResponseTokens: 3000 } }, { question: 10, obs: 10, pad: 10 });
    expect(r.steps[0]!['reward/overlong_penalty_mean']).toBe(0);
    const none = await run({}, { question: 10, obs: 10, pad: 10 });
    expect(none.steps[0]!['reward/overlong_penalty_mean']).toBeUndefined();
  });

  it('refuses a buffer not below the response budget, naming overlong.bufferTokens', async () => {
    await expect(run({ overlong: { bufferTokens: 300, penalty: 1, maxResponseTokens: 300 } }, { question: 1, obs: 1, pad: 1 })).rejects.toThrow(ConfigError);
    await expect(run({ overlong: { bufferTokens: 300, penalty: 1, maxResponseTokens: 200 } }, { question: 1, obs: 1, pad: 1 })).rejects.toThrow(
      /overlong\.bufferTokens/,
    );
    await expect(run({ overlong: { bufferTokens: 10, penalty: 1, maxResponseTokens: 0 } }, { question: 1, obs: 1, pad: 1 })).rejects.toThrow(/overlong/);
  });
});

// Hazard (issue 37 §4): dynamic sampling decided "degenerate" on the shaped reward, so a group of correct answers
// that differ only by an overlong penalty (or wrong answers with differently shaped rewards) counted as informative.
describe('DAPO dynamic sampling: informative groups decided on correctness by default', () => {
  const dataset: Example[] = ['a', 'b', 'c'].map((id) => ({ id, question: `item ${id}: what is 0 + 1?`, answer: '1' }));
  /** Example a: all correct, lengths differ; b: all wrong, rewards differ by shaping; c: one right, one wrong. */
  const script: Script = ({ prompt, sample }) => {
    const id = /item (\w):/.exec(prompt)?.[1];
    if (id === 'c') return sample === 0 ? 'right' : 'wrong';
    if (id === 'b') return sample === 0 ? 'wrong' : 'wrong wrong wrong';
    return sample === 0 ? 'right' : 'right right right';
  };

  const byText: Reward = (t) => {
    const right = t.finalText.startsWith('right');
    return { reward: (right ? 1 : -1) - t.finalText.length / 100, correct: right, validFormat: true };
  };

  it('all-correct groups differing by a penalty and all-wrong groups differing in reward are refilled; the mixed group is kept', async () => {
    const r = await run({ questionsPerBatch: 1, dynamicSampling: { maxAttempts: 3 } }, { question: 0, obs: 0, pad: 0, dataset, reward: byText, script });
    // a (all correct), b (all wrong) are not informative: attempts a, b, c.
    expect(r.steps[0]!['rollout/attempts']).toBe(3);
    expect(r.steps[0]!['rollout/informative_groups']).toBe(1);
    const byReward = await run(
      { questionsPerBatch: 1, dynamicSampling: { maxAttempts: 3, metric: 'reward' } },
      { question: 0, obs: 0, pad: 0, dataset, reward: byText, script },
    );
    expect(byReward.steps[0]!['rollout/attempts']).toBe(1);
  });

  it('an overlong penalty never makes an all-correct group informative', async () => {
    const longScript: Script = ({ sample }) => (sample === 0 ? 'right' : `right ${'z'.repeat(400)}`);
    const r = await run(
      { questionsPerBatch: 1, dynamicSampling: { maxAttempts: 2 }, overlong: { bufferTokens: 200, penalty: 1, maxResponseTokens: 300 } },
      { question: 0, obs: 0, pad: 0, dataset, reward: byText, script: longScript },
    );
    expect(r.steps[0]!['rollout/attempts']).toBe(2);
    expect(r.steps[0]!['rollout/informative_groups']).toBe(0);
    expect(r.steps[0]!['reward/overlong_penalty_mean']).toBeLessThan(0);
  });

  it('isInformativeGroup: by correctness (survivors only) or by reward; dropped groups never', () => {
    const outcome = (kept_G: boolean[], degenerate = false, droppedGroup = false) => ({ kept_G, degenerate, droppedGroup });
    expect(isInformativeGroup([true, true, true], outcome([true, true, true]))).toBe(false);
    expect(isInformativeGroup([false, false], outcome([true, true]))).toBe(false);
    expect(isInformativeGroup([true, false], outcome([true, true], true))).toBe(true);
    expect(isInformativeGroup([true, false, true], outcome([true, false, true]))).toBe(false); // the wrong one was dropped
    expect(isInformativeGroup([true, true], outcome([true, true], false), 'reward')).toBe(true);
    expect(isInformativeGroup([true, false], outcome([true, true], true), 'reward')).toBe(false);
    expect(isInformativeGroup([true, false], outcome([true, true], false, true))).toBe(false);
    expect(isInformativeGroup([true, false], outcome([true, true], false, true), 'reward')).toBe(false);
  });

  it('refuses an unknown dynamicSampling.metric', async () => {
    await expect(run({ dynamicSampling: { maxAttempts: 2, metric: 'acc' as 'correct' } }, { question: 0, obs: 0, pad: 0 })).rejects.toThrow(
      /dynamicSampling\.metric/,
    );
  });
});
