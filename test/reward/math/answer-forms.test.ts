import { describe, expect, it } from 'vitest';
import { extractAnswer } from '../../../src/reward/math/extract-answer.js';
import { extractLastBoxed } from '../../../src/reward/math/extract-boxed.js';
import { mathEquivalentSync } from '../../../src/reward/math/equivalent.js';
import { mathReward } from '../../../src/reward/math-reward.js';
import type { Example } from '../../../src/types/example.js';
import type { Trajectory } from '../../../src/types/trajectory.js';

/** As the reward compares: both sides boxed (LaTeX context). */
const eq = (gold: string, pred: string): boolean => mathEquivalentSync(`\\boxed{${gold}}`, `\\boxed{${pred}}`).equal;
/** As the case file compares whole replies: the general extractor on both sides. */
const judged = (gold: string, reply: string): boolean => {
  const g = extractAnswer(gold, { unclosedBox: 'rest' });
  const p = extractAnswer(reply);
  return g !== null && p !== null && mathEquivalentSync(g, p).equal;
};

type Row = readonly [gold: string, pred: string, expected: boolean];
const check = (rows: readonly Row[]) => {
  const wrong = rows.filter(([g, p, e]) => eq(g, p) !== e).map(([g, p, e]) => `${g} vs ${p}: expected ${e}`);
  expect(wrong).toEqual([]);
};

describe('\\mathrm{e}, \\mathrm{i}, \\mathrm{d} are constants or operators, not units', () => {
  it('does not strip them as units (false positives)', () => {
    check([
      ['3', '3\\mathrm{e}', false],
      ['5', '5\\mathrm{i}', false],
      ['2', '2\\,\\mathrm{e}', false],
      ['7', '7\\mathrm{i}', false],
      ['1+\\frac{1}{\\mathrm{e}}', '1-\\frac{1}{\\mathrm{e}}', false],
      ['4', '4\\operatorname{e}', false],
      ['3\\mathrm{e}', '3e', true],
      ['3+4\\mathrm{i}', '3+4i', true],
      ['\\mathrm{e}^{3}', 'e^3', true],
      ['\\mathrm{e}^{2}', '2\\mathrm{e}', false],
      ['\\mathrm{e}', 'e', true],
      ['\\frac{\\mathrm{d}y}{\\mathrm{d}x}', '\\frac{dy}{dx}', true],
      ['10', '10\\mathrm{e}', false],
      ['6', '6\\,\\mathrm{d}', false],
      ['-1', '\\mathrm{e}^{\\mathrm{i}\\pi}', true],
      ['1', '\\mathrm{i}^4', true],
    ]);
  });

  it('parses a gold that uses them (never silently dropped as gold_unparseable)', () => {
    for (const gold of ['2+\\frac{1}{\\mathrm{e}}', '\\mathrm{e}^{-2}', '1-\\mathrm{i}', '\\sqrt{\\mathrm{e}}']) {
      expect(mathEquivalentSync(`\\boxed{${gold}}`, '\\boxed{1}').status, gold).toBe('ok');
    }
    expect(eq('2+\\frac{1}{\\mathrm{e}}', '\\frac{2e+1}{e}')).toBe(true);
  });

  it('still strips real units', () => {
    check([
      ['5', '5\\,\\mathrm{m}', true],
      ['12', '12\\mathrm{cm}', true],
      ['7', '7\\ \\mathrm{kg}', true],
      ['12', '12\\,\\mathrm{mm}', true],
      ['8', '8\\,\\mathrm{m}^2', true],
      ['50', '50\\,\\mathrm{km/h}', true],
      ['5', '6\\,\\mathrm{m}', false],
    ]);
  });
});

describe('answer forms: named tuples, lists, percents, matrices, ratios, text, unclosed boxes, degrees', () => {
  it('named tuples', () => {
    check([
      ['(4,-1)', '(x,y)=(4,-1)', true],
      ['(1,2,3)', '(a,b,c)=(1,2,3)', true],
      ['(4,-1)', '(x, y) = (-1, 4)', false],
      ['(4,-1)', '(x,y)=(4,1)', false],
      ['(4,-1)', 'x=4, y=-1', true],
      ['(1,2,3)', '(x, y, z) = (1, 2, 3)', true],
      ['(4,-1)', 'x=-1, y=4', false],
      ['(3,4)', '(a, b) = (3, 4)', true],
      ['(4,-1)', '\\left(x,y\\right)=\\left(4,-1\\right)', true],
      ['(2,3)', '(m,n)=(3,2)', false],
      // The gold may be the named one.
      ['(x,y)=(4,-1)', '(4,-1)', true],
      ['(x,y)=(4,-1)', '(-1,4)', false],
      ['(x, y, z) = (1, 2, 3)', 'x=1, y=2, z=3', true],
    ]);
  });

  it('several boxed answers vs one list, and named solutions vs a list', () => {
    expect(judged('$\\boxed{3,5}$', 'The roots are \\boxed{3} and \\boxed{5}.')).toBe(true);
    expect(judged('$\\boxed{3,5}$', 'So $\\boxed{5}, \\boxed{3}$')).toBe(true);
    expect(judged('$\\boxed{3,5}$', 'The roots are \\boxed{3} and \\boxed{6}.')).toBe(false);
    expect(judged('$\\boxed{5}$', 'Either \\boxed{3} or \\boxed{5}.')).toBe(false);
    // Solutions written as separate math environments assigning the same variable.
    expect(judged('$\\boxed{2,-3}$', 'The solutions are $x = 2$ and $x = -3$.')).toBe(true);
    expect(judged('$\\boxed{2,-3}$', 'The solutions are $x = 2$ and $x = 3$.')).toBe(false);
    expect(judged('$3$', 'We set $x = 2$ and $y = 3$.')).toBe(true);
    // The reward sees the same shape when the model boxes each root.
    expect(mathEquivalentSync('\\boxed{3,5}', '\\boxed{3} and \\boxed{5}').equal).toBe(true);
    expect(mathEquivalentSync('\\boxed{3}', '\\boxed{3}, \\boxed{5}').equal).toBe(false);
    check([
      ['2,-3', 'x=2 \\text{ and } x=-3', true],
      ['2,-3', 'x = -3 \\text{ or } x = 2', true],
      ['-1, 4', 'x=4, x=-1', true],
      ['2,-3', 'x=2 \\text{ and } x=3', false],
      ['2,-3', 'x \\in \\{2, -3\\}', true],
      ['-3,2', 'x_1 = 2, x_2 = -3', true],
      ['-1,2', 'x=-1 \\text{ or } x=2', true],
      ['x=2 \\text{ and } x=-3', '-3, 2', true],
      ['x=2 \\text{ or } x=-3', 'x=2', false],
    ]);
  });

  it('a bare list of solutions in another order (tuples keep their order)', () => {
    check([
      ['2,5,9', '9,5,2', true],
      ['-1, 3', '3, -1', true],
      ['\\frac{1}{2}, 4', '4, 0.5', true],
      ['1,2,3', '1,2,4', false],
      ['2,5,9', '2,5', false],
      ['(2,5,9)', '(9,5,2)', false],
      ['(2,5)', '5,2', false],
      ['1,2,3,4', '4,3,2,1', true],
      ['1, 2', '1, -2', false],
    ]);
  });

  it('percent vs number', () => {
    check([
      ['40', '40\\%', true],
      ['40\\%', '40', true],
      ['0.4', '40\\%', true],
      ['12.5', '12.5\\%', true],
      ['40', '4\\%', false],
      ['40\\%', '4', false],
      ['40', '40 \\%', true],
      ['40', '40 percent', true],
      ['0.4', '40', false],
    ]);
  });

  it('matrices in any environment and delimiters', () => {
    check([
      ['\\begin{bmatrix}2&0\\\\1&5\\end{bmatrix}', '\\left[\\begin{array}{cc}2&0\\\\1&5\\end{array}\\right]', true],
      ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '\\left(\\begin{array}{cc}1&2\\\\3&4\\end{array}\\right)', true],
      ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}', true],
      ['\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}', '\\left[\\begin{matrix}1&2\\\\3&4\\end{matrix}\\right]', true],
      ['\\begin{pmatrix}1\\\\2\\end{pmatrix}', '\\left(\\begin{array}{c}1\\\\2\\end{array}\\right)', true],
      ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '\\begin{pmatrix}1&3\\\\2&4\\end{pmatrix}', false],
      ['\\begin{bmatrix}2&0\\\\1&5\\end{bmatrix}', '\\left[\\begin{array}{cc}0&2\\\\1&5\\end{array}\\right]', false],
      ['\\begin{bmatrix}2&0\\\\1&5\\end{bmatrix}', '\\left[\\begin{array}{cc}2&1\\\\0&5\\end{array}\\right]', false],
    ]);
  });

  it('labelled ratios', () => {
    check([
      ['3:8', 'AB:CD=3:8', true],
      ['2:5', 'BE:EC = 2:5', true],
      ['1:2:3', 'a:b:c = 1:2:3', true],
      ['3:8', '\\text{AB}:\\text{CD}=3:8', true],
      ['3:8', '6:16', true],
      ['1:2:3', '2:4:6', true],
      ['1:2:3', '2:4:7', false],
      ['3:8', '-3:8', false],
      ['3:8', 'AB:CD=8:3', false],
      ['3:8', 'AB:CD=3:7', false],
    ]);
  });

  it('text answers and relation spellings', () => {
    check([
      ['Odd', '\\text{Odd}', true],
      ['\\text{even}', 'Even', true],
      ['\\text{Odd}', 'Even', false],
      ['a \\neq 5', 'a != 5', true],
      ['x \\ne 3', 'x != 3', true],
      ['a \\neq 5', 'a != 6', false],
      ['a \\neq 5', 'a = 5', false],
      ['a \\neq 5', 'a ≠ 5', true],
      ['a \\neq 5', 'a\\not=5', true],
      ['\\text{odd}', '\\text{Odd.}', true],
      ['x \\le 3', 'x ≤ 3', true],
      ['x \\geq 3', 'x ≥ 3', true],
      ['-3', '−3', true],
      ['x \\ge 3', 'x ≤ 3', false],
      ['\\text{Odd}', '\\textbf{odd}', true],
    ]);
  });

  it('an unclosed box is no answer', () => {
    expect(extractLastBoxed('The answer is \\boxed{12')).toBeNull();
    expect(extractAnswer('The answer is \\boxed{12')).toBeNull();
    expect(extractAnswer('So 12. Final: \\boxed{\\frac{1}{2}')).toBeNull();
    expect(judged('$12$', 'We get 12, so \\boxed{12')).toBe(false);
    expect(mathEquivalentSync('12', '\\boxed{12').equal).toBe(false);
  });

  it('degrees are never radians', () => {
    check([
      ['\\frac{\\pi}{4}', '45^\\circ', false],
      ['\\frac{\\pi}{2}', '90^{\\circ}', false],
      ['\\frac{\\pi}{3}', '60°', false],
      ['\\frac{\\pi}{4}', '45 degrees', false],
      ['45', '45^\\circ', true],
      ['\\pi', '180^\\circ', false],
      ['\\frac{\\pi}{6}', '\\frac{\\pi}{6}\\text{ radians}', true],
    ]);
  });
});

describe('mathReward on these kinds', () => {
  const reward = mathReward({ inThread: true });
  const ex = (answer: string): Example => ({ id: 'e', question: 'q', answer });
  const traj = (finalText: string): Trajectory => ({
    id: 'e/0',
    example: ex('0'),
    groupIndex: 0,
    messages: [],
    turns: [],
    stopReason: 'answer',
    toolCalls: 0,
    finalText,
  });

  it('reads a gold list as a list and scores a joined box list', async () => {
    await expect(reward(traj('The roots are \\boxed{3} and \\boxed{5}.'), ex('3,5'))).resolves.toMatchObject({ reward: 1 });
    await expect(reward(traj('\\boxed{3,5}'), ex('3,5'))).resolves.toMatchObject({ reward: 1 });
    await expect(reward(traj('\\boxed{3.5}'), ex('3,5'))).resolves.toMatchObject({ reward: -1 });
    // Hedging is never rewarded: "3 or 5" for gold 5.
    await expect(reward(traj('It is \\boxed{3} or \\boxed{5}.'), ex('5'))).resolves.toMatchObject({ reward: -1 });
    await expect(reward(traj('\\boxed{3\\mathrm{e}}'), ex('3'))).resolves.toMatchObject({ reward: -1 });
    await expect(reward(traj('\\boxed{1}'), ex('2+\\frac{1}{\\mathrm{e}}'))).resolves.toMatchObject({ reward: -1 });
    await expect(reward(traj('\\boxed{2+e^{-1}}'), ex('2+\\frac{1}{\\mathrm{e}}'))).resolves.toMatchObject({ reward: 1 });
  });
});
