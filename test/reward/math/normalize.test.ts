import { describe, expect, it } from 'vitest';
import { normalizeDetailed, normalizeMathAnswer } from '../../../src/reward/math/normalize.js';
import { extractAnswer } from '../../../src/reward/math/extract-answer.js';

describe('normalizeMathAnswer', () => {
  it.each([
    ['\\dfrac{1}{2}', '\\frac{1}{2}'],
    ['\\tfrac12', '\\frac{1}{2}'],
    ['\\left( \\frac{1}{3} \\right)', '( \\frac{1}{3} )'],
    ['1{,}000', '1000'],
    ['1\\,000', '1000'],
    ['11,\\! 111,\\! 111,\\! 100', '11111111100'],
    ['12,000,023', '12000023'],
    ['1 000', '1000'],
    ['1000,99', '1000.99'],
    ['\\$16386.17', '16386.17'],
    ['5.', '5'],
    ['.4', '0.4'],
    ['\\frac{1}{3} \\text{meters}', '\\frac{1}{3}'],
    ['15\\mbox{ cm}^2', '15'],
    ['125 miles', '125'],
    ['28 pct', '28\\%'],
    ['28 percentage', '28\\%'],
    ['\\text{(B)}', 'B'],
    ['(C)', 'C'],
    ['\\sqrt3', '\\sqrt{3}'],
    ['x >= 5', 'x \\ge 5'],
    ['1.5e6', '1.5\\times10^{6}'],
    ['2 1/4', '(2+\\frac{1}{4})'],
    ['\\\\frac{1}{2}', '\\frac{1}{2}'],
  ])('%s → %s', (input, output) => {
    expect(normalizeMathAnswer(input)).toBe(output);
  });

  // Hazard: compute-engine converts `30^\circ` to radians; the mark must be removed but remembered.
  it('removes degree marks and flags them', () => {
    expect(normalizeDetailed('30^{\\circ}')).toEqual({ text: '30', degrees: true });
    expect(normalizeDetailed('30\\text{ degrees}')).toEqual({ text: '30', degrees: true });
  });

  // Hazard: `2,3` from a box is a list; a decimal comma is only read outside math delimiters.
  it('reads a comma inside math delimiters as a list separator', () => {
    expect(normalizeMathAnswer('$2,3$')).toBe('2,3');
    expect(normalizeMathAnswer('1,22')).toBe('1.22');
  });
});

describe('extractAnswer', () => {
  it.each([
    ['Therefore the answer is $\\boxed{\\frac{14}{3}}$.', '$\\frac{14}{3}$'],
    ['Final Answer: The final answer is 12,000,023. I hope it is correct.', '12,000,023'],
    ['So the answer is 0', '0'],
    ['Réponse: Janeth aura encore 220 $ à payer.', '220'],
    ['地块面积 = 72000 / 18 = 4000千克', '4000'],
    ['the ordered pair is $(7, 6)$.', '$(7, 6)$'],
    ['1 - \\sqrt{2}', '1 - \\sqrt{2}'],
  ])('%s', (text, answer) => {
    expect(extractAnswer(text)).toBe(answer);
  });

  // Hazard: a number glued inside a word is not an answer.
  it('finds nothing in AZYUK2A or an empty text', () => {
    expect(extractAnswer('AZYUK2A')).toBeNull();
    expect(extractAnswer('')).toBeNull();
  });
});
