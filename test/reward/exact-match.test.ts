import { describe, expect, it } from 'vitest';
import { exactMatch, extractTaggedAnswer, normalizeAnswer } from '../../src/reward/exact-match.js';
import type { Trajectory } from '../../src/types/trajectory.js';
import type { Example } from '../../src/types/example.js';

const example: Example = { id: 'q1', question: 'What is the capital of Finland?', answer: 'Helsinki', meta: { aliases: ['Helsingfors'] } };
function traj(finalText: string, stopReason: Trajectory['stopReason'] = 'answer'): Trajectory {
  return { id: 'q1/0', example, groupIndex: 0, messages: [], turns: [], stopReason, toolCalls: 0, finalText };
}

describe('exactMatch', () => {
  it('normalises like SQuAD / Search-R1: case, punctuation, articles, spaces', () => {
    expect(normalizeAnswer('  The  Eiffel-Tower! ')).toBe('eiffeltower');
    expect(normalizeAnswer('An Apple a day')).toBe('apple day');
    expect(normalizeAnswer('São Tomé')).toBe('são tomé');
    expect(normalizeAnswer('Theatre')).toBe('theatre'); // "the" only as a whole word
  });

  it('scores the last <answer> block, against the answer and its aliases', () => {
    const r = exactMatch();
    expect(r(traj('<answer>Oslo</answer> no wait <answer> helsinki. </answer>'), example)).toEqual({
      reward: 1,
      correct: true,
      validFormat: true,
      answer: 'helsinki.',
    });
    expect(r(traj('<answer>Helsingfors</answer>'), example)).toMatchObject({ reward: 1, correct: true });
    expect(r(traj('<answer>Oslo</answer>'), example)).toMatchObject({ reward: 0, correct: false, validFormat: true, answer: 'Oslo' });
  });

  it('only reads the final text: an answer in an earlier turn does not count', () => {
    // Hazard: Search-R1 scores prompt + response; a reward that sees the prompt's example answer is fooled.
    const t = { ...traj('I am not sure.'), turns: [] };
    expect(exactMatch()(t, example)).toMatchObject({ correct: false, validFormat: false, answer: 'I am not sure.' });
  });

  it('falls back to \\boxed{} and then to the whole final text (think blocks removed), flagging the format', () => {
    const r = exactMatch({ correct: 1, wrong: -1 });
    expect(r(traj('so \\boxed{Hel{sinki}}'), { ...example, answer: 'Hel{sinki}' })).toMatchObject({ reward: 1, validFormat: true });
    expect(r(traj('<think>hmm, Oslo?</think>Helsinki'), example)).toEqual({ reward: 1, correct: true, validFormat: false, answer: 'Helsinki' });
    expect(extractTaggedAnswer('nothing here')).toBeUndefined();
  });

  it('scores invalid trajectories and empty answers as wrong, and drops unparseable gold', () => {
    const r = exactMatch({ wrong: -1 });
    expect(r(traj('<answer>Helsinki</answer>', 'invalid'), example)).toMatchObject({ reward: -1, failure: 'invalid_format' });
    expect(r(traj('<answer> the </answer>'), example)).toMatchObject({ reward: -1, failure: 'no_answer' });
    expect(r(traj('<answer>x</answer>'), { ...example, answer: '!!', meta: {} })).toMatchObject({ failure: 'gold_unparseable', drop: true, correct: false });
  });
});
