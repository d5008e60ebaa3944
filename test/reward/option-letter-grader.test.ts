// Issue 37 §6: a multiple-choice gold letter against an answer that carries the option text, in every grader.
import { describe, expect, it } from 'vitest';
import { mathReward } from '../../src/reward/math-reward.js';
import { exactMatch } from '../../src/reward/exact-match.js';
import { mathEquivalentSync } from '../../src/reward/math/equivalent.js';
import { optionLetter } from '../../src/reward/option-letter.js';
import type { Example } from '../../src/types/example.js';
import type { Trajectory } from '../../src/types/trajectory.js';

const ex = (answer: string): Example => ({ id: 'e', question: 'q', answer });
const traj = (finalText: string, example: Example): Trajectory => ({
  id: 'e/0',
  example,
  groupIndex: 0,
  messages: [],
  turns: [],
  stopReason: 'answer',
  toolCalls: 0,
  finalText,
});

/** The forms of "letter L, maybe with its option text" a model writes. */
const forms = (L: string): string[] => [
  `${L}) 17`,
  `(${L}) 17`,
  `${L}. 17`,
  `\\text{${L}}: 17`,
  `${L}: 17`,
  `**${L}**`,
  `Option ${L}`,
  `(${L})`,
  `${L}`,
  `**(${L}) 17**`,
  `*${L}*`,
  `__${L}__`,
  `[${L}]`,
  `Option (${L}): 17`,
  `Choice ${L}`,
  `Answer: ${L}) 17`,
  `The answer is (${L})`,
  `the correct answer is ${L}`,
  `\\textbf{${L}}. 17`,
  `\\underline{${L}}`,
  `${L}) $\\frac{3}{4}$`,
  `(${L}) x^2 + 1`,
  `${L}.\\ 17`,
  `\\text{Option ${L}}`,
  `${L.toLowerCase()}) 17`,
];

// Hazard: gold `C` against `C) 17` was judged wrong by the math grader (mathEquivalentSync / mathEquivalent) even
// though the letter matches; and an answer with another letter must stay wrong whatever its option text.
describe('multiple-choice letter with option text (issue 37 §6)', () => {
  const cases: [gold: string, right: string, wrong: string][] = [
    ['C', 'C', 'D'],
    ['(C)', 'C', 'B'],
    ['\\text{C}', 'C', 'A'],
    ['\\boxed{C}', 'C', 'E'],
    ['A', 'A', 'C'],
    ['E', 'E', 'D'],
    ['(B) 17', 'B', 'C'],
  ];

  it('mathEquivalentSync: right when the letter matches, wrong for another letter, whatever the text', () => {
    for (const [gold, right, wrong] of cases) {
      for (const f of forms(right)) expect(mathEquivalentSync(gold, f).equal, `${gold} vs ${f}`).toBe(true);
      for (const f of forms(wrong)) expect(mathEquivalentSync(gold, f).equal, `${gold} vs ${f}`).toBe(false);
      // Naming two letters, or only the option text, is never right.
      for (const f of [`${right}) 17 or ${wrong}) 18`, `Option ${right} or ${wrong}`, `**${right}**, **${wrong}**`, '17'])
        expect(mathEquivalentSync(gold, f).equal, `${gold} vs ${f}`).toBe(false);
    }
  });

  it('mathReward (worker pool) and exactMatch agree', async () => {
    const math = mathReward();
    const em = exactMatch();
    try {
      for (const [gold, right, wrong] of [
        ['C', 'C', 'D'],
        ['(A)', 'A', 'B'],
      ] as const) {
        for (const f of forms(right)) {
          await expect(math(traj(`So the answer is \\boxed{${f}}`, ex(gold)), ex(gold)), `${gold} / ${f}`).resolves.toMatchObject({ correct: true, reward: 1 });
          expect(em(traj(`<answer>${f}</answer>`, ex(gold)), ex(gold)), `${gold} / ${f}`).toMatchObject({ correct: true });
        }
        for (const f of forms(wrong)) {
          await expect(math(traj(`\\boxed{${f}}`, ex(gold)), ex(gold)), `${gold} / ${f}`).resolves.toMatchObject({ correct: false });
          expect(em(traj(`<answer>${f}</answer>`, ex(gold)), ex(gold)), `${gold} / ${f}`).toMatchObject({ correct: false });
        }
      }
    } finally {
      await math.close();
    }
  });

  it('arithmetic on a letter is not an option text: (A)+1, (A)^2, (A) e are wrong; (C) -3 is the option text −3', () => {
    for (const gold of ['\\text{(A)}', '(A)', 'A']) {
      for (const p of ['\\text{(A)}+1', '(A)-1', '(A)^2', '(A)\\cdot 2', '\\text{(A)}\\mathrm{e}', '\\text{(A)}\\,\\mathrm{i}', '(A) d'])
        expect(mathEquivalentSync(`$${gold}$`, `$${p}$`).equal, `${gold} vs ${p}`).toBe(false);
    }
    expect(mathEquivalentSync('C', '(C) -3').equal).toBe(true);
    expect(mathEquivalentSync('C', 'C) x+1').equal).toBe(true);
  });

  it('labels and emphasis never invent a letter: words, variables and math stay math', () => {
    for (const s of ['Answer', 'Option', 'Apple', 'answer is a function', '**17**', 'x_1', 'Choice of 3']) expect(optionLetter(s, 'prediction'), s).toBeNull();
    expect(mathEquivalentSync('17', 'C) 17').equal).toBe(false);
    expect(mathEquivalentSync('x', 'X').equal).toBe(false);
    expect(mathEquivalentSync('2x', '**2x**').equal).toBe(false);
    expect(mathEquivalentSync('\\frac{1}{2}', '0.5').equal).toBe(true);
  });
});
