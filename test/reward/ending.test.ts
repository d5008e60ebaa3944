import { describe, expect, it } from 'vitest';
import { answerOf, answerPart, endedValidly, withValidEnding } from '../../src/reward/ending.js';
import { mathReward } from '../../src/reward/math-reward.js';
import { exactMatch } from '../../src/reward/exact-match.js';
import { rolloutMetrics } from '../../src/eval/rollout-metrics.js';
import { ConfigError } from '../../src/errors/config-error.js';
import type { Example } from '../../src/types/example.js';
import type { RewardResult } from '../../src/types/reward.js';
import type { Trajectory, TrajectoryStopReason } from '../../src/types/trajectory.js';

const ex = (answer: string): Example => ({ id: 'e', question: 'q', answer });
const traj = (finalText: string, stopReason: TrajectoryStopReason = 'answer', example = ex('12')): Trajectory => ({
  id: 'e/0',
  example,
  groupIndex: 0,
  messages: [],
  turns: [],
  stopReason,
  toolCalls: 0,
  finalText,
});

const math = mathReward({ inThread: true });
const TOOL = '<tool_call>{"name":"code_interpreter","arguments":{"code":"print(12)"}}</tool_call>';

describe('the ending rule (answerOf)', () => {
  // Hazard (issue 13 §1): a reply that boxes the answer and then calls a tool ended `invalid` and scored +1.
  it('scores an answer followed by a tool call in an invalid ending as wrong, validFormat false', async () => {
    const t = traj(`The sum is \\boxed{12}. ${TOOL}`, 'invalid');
    await expect(math(t, ex('12'))).resolves.toEqual({ reward: -1, correct: false, validFormat: false, failure: 'invalid_format' });
    // Variants: the same for exactMatch, and for a correct-looking <answer> block.
    expect(exactMatch({ wrong: -1 })(traj(`<answer>12</answer> ${TOOL}`, 'invalid'), ex('12'))).toMatchObject({
      reward: -1,
      validFormat: false,
      failure: 'invalid_format',
    });
    await expect(math(traj('\\boxed{12}</tool_call>', 'invalid'), ex('12'))).resolves.toMatchObject({ reward: -1, correct: false, validFormat: false });
  });

  it('searches only the text after the last </think>', async () => {
    await expect(math(traj('<think>maybe \\boxed{7}</think>\n\nSo it is 8.'), ex('7'))).resolves.toMatchObject({
      reward: -1,
      correct: false,
      failure: 'no_answer',
    });
    // Variants: two think blocks, the box in the second one; a box after the think is found.
    await expect(math(traj('<think>a</think> x <think>\\boxed{7}</think> So 8.'), ex('7'))).resolves.toMatchObject({ reward: -1, correct: false });
    await expect(math(traj('<think>\\boxed{8}</think>So \\boxed{7}.'), ex('7'))).resolves.toMatchObject({ reward: 1, correct: true });
    // A template that opens <think> in the prompt: the completion has only the closing tag.
    await expect(math(traj('maybe \\boxed{7}</think>It is 8.'), ex('7'))).resolves.toMatchObject({ reward: -1, correct: false });
    expect(exactMatch()(traj('<think><answer>Oslo</answer></think>Helsinki'), ex('Oslo'))).toMatchObject({ correct: false });
  });

  it('scores an unfinished <think> as no_answer', async () => {
    await expect(math(traj('<think>I guess \\boxed{7}'), ex('7'))).resolves.toEqual({ reward: -1, correct: false, validFormat: false, failure: 'no_answer' });
    await expect(math(traj('<think>a</think>\\boxed{7} <think>hmm \\boxed{7}'), ex('7'))).resolves.toMatchObject({ reward: -1, failure: 'no_answer' });
    expect(answerPart('<think>x')).toBeNull();
    expect(answerPart('plain \\boxed{1}')).toBe('plain \\boxed{1}');
    // Harmony (GPT-OSS): only the final channel is the answer; analysis is reasoning.
    expect(answerPart('<|channel|>analysis<|message|>maybe \\boxed{7}<|end|><|start|>assistant<|channel|>final<|message|>So \\boxed{8}.')).toBe(
      'So \\boxed{8}.',
    );
    expect(answerPart('<|channel|>analysis<|message|>maybe \\boxed{7}')).toBeNull();
    expect(answerPart('text that mentions <|channel|>final<|message|> inside')).toBe('text that mentions <|channel|>final<|message|> inside');
  });

  it('scores a trajectory cut by a token budget as wrong by default, and as an answer when asked', async () => {
    for (const stop of ['max_turn_tokens', 'max_trajectory_tokens'] as const) {
      await expect(math(traj('So \\boxed{12}', stop), ex('12'))).resolves.toEqual({ reward: -1, correct: false, validFormat: false, failure: 'truncated' });
      const lenient = mathReward({ inThread: true, scoreTruncated: true });
      await expect(lenient(traj('So \\boxed{12}', stop), ex('12'))).resolves.toMatchObject({ reward: 1, correct: true });
      expect(exactMatch()(traj('<answer>12</answer>', stop), ex('12'))).toMatchObject({ reward: 0, failure: 'truncated' });
      expect(exactMatch({ scoreTruncated: true })(traj('<answer>12</answer>', stop), ex('12'))).toMatchObject({ reward: 1 });
    }
  });

  it('scores endings without an answer (tool budget, turn budget, abort) as no_answer', async () => {
    for (const stop of ['max_tool_calls', 'max_turns', 'aborted'] as const) {
      await expect(math(traj(`\\boxed{12} ${TOOL}`, stop), ex('12'))).resolves.toMatchObject({ reward: -1, validFormat: false, failure: 'no_answer' });
    }
    // A stop reason this version does not know (e.g. a future `error`) is never scored.
    expect(answerOf(traj('\\boxed{12}', 'error' as TrajectoryStopReason)).scorable).toBe(false);
    expect(answerOf(traj('\\boxed{12}', 'env_done'))).toEqual({ scorable: true, text: '\\boxed{12}' });
  });

  it('puts a custom reward under the same rule', async () => {
    let calls = 0;
    const custom = withValidEnding(
      (t): RewardResult => {
        calls++;
        const ok = t.finalText.includes('12');
        return { reward: ok ? 1 : 0, correct: ok, validFormat: true };
      },
      { wrong: 0 },
    );
    expect(await custom(traj(`12 ${TOOL}`, 'invalid'), ex('12'))).toEqual({ reward: 0, correct: false, validFormat: false, failure: 'invalid_format' });
    expect(await custom(traj('<think>12</think>13'), ex('12'))).toMatchObject({ reward: 0, correct: false });
    expect(await custom(traj('<think>x</think> 12'), ex('12'))).toMatchObject({ reward: 1, correct: true });
    expect(calls).toBe(2);
    expect(() => withValidEnding(() => ({ reward: 0, correct: false, validFormat: false }), { wrong: Number.NaN })).toThrow(ConfigError);
  });
});

describe('reward/format and reward/mean', () => {
  const group = (ts: Trajectory[], rs: RewardResult[]) => ({ trajectories: ts, rewards: rs, degenerate: false });

  it('counts only valid endings as valid format, whatever a custom reward says', () => {
    // A custom reward that forgot the rule says validFormat: true for an invalid ending.
    const m = rolloutMetrics([
      group(
        [traj('\\boxed{1}', 'invalid'), traj('\\boxed{1}', 'max_turn_tokens'), traj('\\boxed{1}'), traj('<think>\\boxed{1}')],
        Array.from({ length: 4 }, () => ({ reward: 1, correct: true, validFormat: true })),
      ),
    ]);
    expect(m['reward/format']).toBe(0.25);
    expect(endedValidly(traj('x', 'max_turn_tokens'), { scoreTruncated: true })).toBe(true);
  });

  it('excludes dropped samples from reward/mean, reward/correct and reward/format', () => {
    const m = rolloutMetrics([
      group(
        [traj('\\boxed{1}'), traj('\\boxed{2}'), traj('\\boxed{3}')],
        [
          { reward: 1, correct: true, validFormat: true },
          { reward: -1, correct: false, validFormat: true },
          { reward: 0, correct: false, validFormat: true, failure: 'gold_unparseable', drop: true },
        ],
      ),
    ]);
    expect(m['reward/mean']).toBe(0);
    expect(m['reward/correct']).toBe(0.5);
    expect(m['reward/format']).toBe(1);
    expect(m['reward/dropped']).toBe(1);
  });
});
