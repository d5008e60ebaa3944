// How rewards score three answer shapes: a reference with no definite value (dropped), a blank box (no answer), and
// a multiple-choice letter (any form of the right letter).
import { describe, expect, it } from 'vitest';
import { mathReward } from '../../src/reward/math-reward.js';
import { exactMatch } from '../../src/reward/exact-match.js';
import { mathEquivalentSync } from '../../src/reward/math/equivalent.js';
import { lacksDefiniteValue } from '../../src/reward/math/scalar.js';
import { isBlankAnswer } from '../../src/reward/math/extract-boxed.js';
import { optionLetter, sameOptionLetter } from '../../src/reward/option-letter.js';
import { rolloutMetrics } from '../../src/eval/rollout-metrics.js';
import type { Example } from '../../src/types/example.js';
import type { Trajectory } from '../../src/types/trajectory.js';

const ex = (answer: string): Example => ({ id: 'e', question: 'q', answer });
const traj = (finalText: string, example = ex('12')): Trajectory => ({
  id: 'e/0',
  example,
  groupIndex: 0,
  messages: [],
  turns: [],
  stopReason: 'answer',
  toolCalls: 0,
  finalText,
});
const math = mathReward({ inThread: true });
const boxed = (s: string) => `\\boxed{${s}}`;

describe('a reference with no definite value drops the sample, never rewards', () => {
  const valueless = [
    '\\frac{1}{0}',
    '\\frac{0}{0}',
    '\\frac{7}{3-3}',
    '1/(2-2)',
    '\\ln 0',
    '\\log_{2} 0',
    '\\log(0)',
    '\\tan\\frac{\\pi}{2}',
    '\\sec(\\pi/2)',
    '\\cot 0',
    '\\csc(0)',
    '\\frac{1}{\\sin 0}',
    '0^{-1}',
    '\\Gamma(0)',
    '\\Gamma(-3)',
    '0^0',
    '\\frac{\\pi}{0}',
  ];
  const predictions = ['\\infty', '-\\infty', '+\\infty', '\\frac{1}{0}', '\\frac{2}{0}', '\\frac{0}{0}', '\\ln 0', '0', '1', 'undefined', '\\text{DNE}'];

  it('lacksDefiniteValue: undefined or infinite constants, not bare infinities, variables, or complex numbers', () => {
    for (const v of valueless) expect(lacksDefiniteValue(v), v).toBe(true);
    for (const v of ['\\infty', '-\\infty', '+\\infty', '0', '\\sqrt{-4}', '\\ln(-1)', 'x', '\\frac{1}{x}', 'f(2)', '\\frac{1}{2}']) {
      expect(lacksDefiniteValue(v), v).toBe(false);
    }
  });

  it('every valueless reference is gold_unparseable against every prediction, itself included', () => {
    for (const g of valueless) {
      for (const p of [...predictions, g]) {
        expect(mathEquivalentSync(boxed(g), boxed(p)), `${g} vs ${p}`).toMatchObject({ equal: false, status: 'gold_unparseable' });
      }
    }
  });

  it('a valueless value inside a structure (tuple, interval end, assignment, list) also drops', () => {
    for (const g of ['(1, \\frac{1}{0})', '[\\ln 0, 3)', 'x = \\frac{2}{0}', '1, \\frac{0}{0}']) {
      expect(mathEquivalentSync(boxed(g), boxed(g)).status, g).toBe('gold_unparseable');
    }
  });

  it('mathReward drops it (reward 0, drop, gold_unparseable), so no prediction earns +1', async () => {
    for (const g of ['\\frac{1}{0}', '\\ln 0', '\\tan\\frac{\\pi}{2}']) {
      for (const p of ['-\\infty', '\\infty', '\\frac{3}{0}', g]) {
        const r = await math(traj(`so ${boxed(p)}`, ex(g)), ex(g));
        expect(r, `${g} vs ${p}`).toMatchObject({ reward: 0, correct: false, drop: true, failure: 'gold_unparseable' });
      }
    }
  });

  it('a bare infinity reference stays comparable; a valueless prediction never equals it', async () => {
    expect(mathEquivalentSync(boxed('\\infty'), boxed('\\infty'))).toMatchObject({ equal: true });
    expect(mathEquivalentSync(boxed('-\\infty'), boxed('-\\infty'))).toMatchObject({ equal: true });
    expect(mathEquivalentSync(boxed('(-\\infty, 3]'), boxed('(-\\infty,3]'))).toMatchObject({ equal: true });
    for (const g of ['\\infty', '-\\infty']) {
      for (const p of ['\\frac{1}{0}', '\\ln 0', '\\frac{0}{0}', '\\cot 0']) {
        expect(mathEquivalentSync(boxed(g), boxed(p)), `${g} vs ${p}`).toMatchObject({ equal: false, status: 'ok' });
        await expect(math(traj(boxed(p), ex(g)), ex(g))).resolves.toMatchObject({ reward: -1, correct: false });
      }
    }
  });
});

describe('an empty or blank box is no answer (no format credit)', () => {
  const blanks = ['', ' ', '\\,', '\\;', '\\quad', '\\ ', '~', '{}', '\\text{}', '\\text{ }', '\\mathrm{}', '$ $', '\\hspace{1cm}', '{\\,}'];

  it('isBlankAnswer', () => {
    for (const b of blanks) expect(isBlankAnswer(b), JSON.stringify(b)).toBe(true);
    for (const b of ['0', 'x', '\\text{no}', '\\emptyset', '\\{\\}', '-']) expect(isBlankAnswer(b), b).toBe(false);
  });

  it('mathReward: no_answer, validFormat false, for every blank last box, echoes of the prompt included', async () => {
    const texts = [
      ...blanks.map((b) => `The answer is ${boxed(b)}`),
      'Please reason step by step, and put your final answer within \\boxed{}.',
      'It is \\boxed{12}. Remember to put your final answer within \\boxed{}.',
      'So \\boxed{12}, \\boxed{}',
    ];
    for (const t of texts) {
      await expect(math(traj(t), ex('12')), t).resolves.toEqual({ reward: -1, correct: false, validFormat: false, failure: 'no_answer' });
    }
  });

  it('a blank box inside a joined list is left out, not read as an item', async () => {
    await expect(math(traj('\\boxed{3}, \\boxed{\\,}, \\boxed{5}', ex('3, 5')), ex('3, 5'))).resolves.toMatchObject({ reward: 1, correct: true });
  });

  it('exactMatch: an empty <answer> or box is no_answer with validFormat false', () => {
    const em = exactMatch();
    for (const t of ['<answer></answer>', '<answer>  </answer>', '\\boxed{}', 'final: \\boxed{ \\, }']) {
      expect(em(traj(t, ex('Paris')), ex('Paris')), t).toMatchObject({ correct: false, validFormat: false, failure: 'no_answer' });
    }
  });

  it('the format rate does not count blank boxes', async () => {
    const ts = [traj('\\boxed{}'), traj('\\boxed{12}'), traj('\\boxed{\\quad}'), traj('\\boxed{11}')];
    const rewards = await Promise.all(ts.map((t) => math(t, ex('12'))));
    expect(rolloutMetrics([{ trajectories: ts, rewards, degenerate: false }])['reward/format']).toBeCloseTo(0.5);
  });
});

describe('multiple-choice letters', () => {
  const forms = [
    'B',
    '(B)',
    'B)',
    'B.',
    'B:',
    '\\text{B}',
    '\\text{(B)}',
    '\\textbf{(B)}',
    '\\mathrm{B}',
    'b',
    '(b)',
    'B) 12',
    '(B) 12',
    'B. 12',
    'B: 12',
    '\\text{(B) } 12',
    '\\textbf{(B)}\\ 12',
    '(B) $\\frac{1}{2}$',
    'B) 3\\sqrt{2}',
    '(B) Paris',
  ];
  const hedges = ['B or C', 'B and C', 'B, C', 'B/C', '(B) 12, (C) 15', 'B) 12 or C) 15', '(B) or (C)', 'B) 12 and C) 15'];
  const others = ['C', '(C) 12', 'A) 12', '12', 'Bob', 'B12'];

  it('optionLetter reads a letter alone or with its option text; two letters read as none', () => {
    for (const f of forms) expect(optionLetter(f, 'prediction'), f).toBe('B');
    for (const h of hedges) expect(optionLetter(h, 'prediction'), h).toBeNull();
    expect(optionLetter('a', 'gold')).toBeNull(); // a bare lower-case reference is a variable
    expect(optionLetter('(a)', 'gold')).toBe('A');
    expect(optionLetter('(D) 7', 'gold')).toBe('D');
    expect(optionLetter('12', 'gold')).toBeNull();
  });

  it('mathReward: every form of the right letter is +1, hedges and other letters are −1', async () => {
    for (const gold of ['B', '(B)', '\\text{B}', '(B) 12']) {
      for (const f of forms)
        await expect(math(traj(`Answer: ${boxed(f)}`, ex(gold)), ex(gold)), `${gold} / ${f}`).resolves.toMatchObject({ reward: 1, correct: true });
      for (const f of [...hedges, ...others])
        await expect(math(traj(boxed(f), ex(gold)), ex(gold)), `${gold} / ${f}`).resolves.toMatchObject({ reward: -1, correct: false });
    }
  });

  it('exactMatch applies the same rule', () => {
    const em = exactMatch();
    for (const f of ['B) 12', '(B) 12', '\\text{(B) } 12']) expect(em(traj(`<answer>${f}</answer>`, ex('B')), ex('B')), f).toMatchObject({ correct: true });
    for (const f of hedges) expect(em(traj(`<answer>${f}</answer>`, ex('B')), ex('B')), f).toMatchObject({ correct: false });
  });

  it('a non-letter reference is still compared as math', async () => {
    expect(sameOptionLetter('12', 'B) 12')).toBeNull();
    await expect(math(traj(boxed('x^2'), ex('x^{2}')), ex('x^{2}'))).resolves.toMatchObject({ correct: true });
  });
});
