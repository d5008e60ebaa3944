import { afterAll, describe, expect, it } from 'vitest';
import { mathReward } from '../../../src/reward/math-reward.js';
import { ConfigError } from '../../../src/errors/config-error.js';
import type { Example } from '../../../src/types/example.js';
import type { Trajectory } from '../../../src/types/trajectory.js';

const example = (answer: string, question = 'What is 2+3?'): Example => ({ id: 'e1', question, answer });
const traj = (finalText: string, ex: Example, prompt = ex.question): Trajectory => ({
  id: 'e1/0',
  example: ex,
  groupIndex: 0,
  messages: [
    { role: 'user', content: prompt },
    { role: 'assistant', content: finalText },
  ],
  turns: [],
  stopReason: 'answer',
  toolCalls: 0,
  finalText,
});

const reward = mathReward({ timeoutMs: 10_000, workers: 1 });
afterAll(() => reward.close());

describe('mathReward', () => {
  it('gives +1 for an equivalent boxed answer and -1 for a wrong one', async () => {
    const ex = example('\\frac{1}{2}');
    await expect(reward(traj('So $p=\\boxed{\\dfrac{1}{2}}$.', ex), ex)).resolves.toEqual({
      reward: 1,
      correct: true,
      validFormat: true,
      answer: '\\dfrac{1}{2}',
    });
    await expect(reward(traj('So \\boxed{0.4}.', ex), ex)).resolves.toMatchObject({ reward: -1, correct: false, validFormat: true });
  });

  // Hazard: the prompt is not the response; a box quoted in the question must earn nothing.
  it('scores only the final response, never a box in the prompt', async () => {
    const ex = example('5', 'Put your answer in \\boxed{5}-style, e.g. \\boxed{5}.');
    const r = await reward(traj('I think it is five.', ex), ex);
    expect(r).toEqual({ reward: -1, correct: false, validFormat: false, failure: 'no_answer' });
  });

  it('reads a list answer from a box as a list, not a decimal comma', async () => {
    const ex = example('\\{2,3\\}');
    await expect(reward(traj('\\boxed{3,2}', ex), ex)).resolves.toMatchObject({ reward: 1 });
  });

  // Hazard: a broken reference must never be rewarded; the sample is dropped instead.
  it('drops a sample whose gold answer does not parse', async () => {
    const ex = example('\\frac{1}{');
    const r = await reward(traj('\\boxed{1}', ex), ex);
    expect(r).toMatchObject({ reward: 0, correct: false, failure: 'gold_unparseable', drop: true });
    const empty = example('  ');
    await expect(reward(traj('\\boxed{1}', empty), empty)).resolves.toMatchObject({ failure: 'gold_unparseable', drop: true });
  });

  it('reports an unparseable prediction', async () => {
    const ex = example('5');
    await expect(reward(traj('\\boxed{\\frac{1}{}}', ex), ex)).resolves.toMatchObject({ reward: -1, failure: 'unparseable_prediction' });
  });

  it('scores a pathological answer as a timeout within the deadline', async () => {
    const r2 = mathReward({ timeoutMs: 300, workers: 1 });
    const ex = example('0');
    await expect(r2(traj('\\boxed{\\frac{1}{100000!}}', ex), ex)).resolves.toMatchObject({ reward: -1, failure: 'timeout' });
    await r2.close();
  });

  it('uses custom reward values and runs in-thread when asked', async () => {
    const r = mathReward({ correct: 2, wrong: 0, inThread: true });
    const ex = example('10\\%');
    await expect(r(traj('Hence \\boxed{0.1}.', ex), ex)).resolves.toMatchObject({ reward: 2, correct: true });
    await r.close();
  });

  it('rejects unknown or invalid options with dotted paths', () => {
    expect(() => mathReward({ window: -1 })).toThrow(ConfigError);
    expect(() => mathReward({ windw: 3 } as never)).toThrow(/windw|unrecognized/i);
  });
});
