import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { extractBoxedAnswer, extractLastBoxed, findBoxes } from '../../../src/reward/math/extract-boxed.js';

describe('extractLastBoxed (reward rule)', () => {
  it('returns the content of the last box, with nested braces', () => {
    expect(extractLastBoxed('so $p=\\boxed{\\frac{1}{2}}$.')).toBe('\\frac{1}{2}');
  });

  // Hazard: a self-correction must score the final answer, not a set of both.
  it('takes the last box when two are present', () => {
    expect(extractLastBoxed('first \\boxed{3}, but rechecking gives \\boxed{4}.')).toBe('4');
  });

  it('lands on the inner box of a nested box, as the ReTool recipe rfind does (05-retool/reward.py)', () => {
    expect(extractLastBoxed('So \\boxed{\\boxed{2}}.')).toBe('2');
  });

  it('accepts \\fbox', () => {
    expect(extractLastBoxed('hence \\fbox{7}')).toBe('7');
  });

  // Hazard: crediting an answer outside the window (or brace-less) breaks the documented rule.
  it('ignores boxes that open before the final window and brace-less boxes', () => {
    const text = `\\boxed{5}${' filler'.repeat(60)}`;
    expect(extractLastBoxed(text, { window: 300 })).toBeNull();
    expect(extractLastBoxed(text, { window: 1000 })).toBe('5');
    expect(extractLastBoxed('Answer: \\boxed 5')).toBeNull();
  });

  it('returns null for an unclosed last box and for empty text', () => {
    expect(extractLastBoxed('\\boxed{3} then \\boxed{4')).toBeNull();
    expect(extractLastBoxed('')).toBeNull();
  });

  it('treats escaped braces as literal characters', () => {
    expect(extractLastBoxed('\\boxed{\\{1,2\\}}')).toBe('\\{1,2\\}');
  });

  // Property: whatever surrounds it, a box of balanced content at the end is returned verbatim.
  it('recovers any balanced content placed in a final box', () => {
    const balanced = fc.stringMatching(/^[a-z0-9+\-^ ]{0,20}$/).map((s) => `{${s}}`);
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), balanced, (prefix, body) => {
        const text = `${prefix.replace(/[\\{}]/g, '')} \\boxed{${body}}`;
        expect(extractLastBoxed(text)).toBe(body);
      }),
    );
  });
});

describe('extractBoxedAnswer (general extraction)', () => {
  it('joins adjacent boxes separated by commas, and, or an assignment lead-in', () => {
    expect(extractBoxedAnswer('$\\boxed{2}, \\boxed{3}$')?.answer).toBe('2, 3');
    expect(extractBoxedAnswer('\\boxed{1} and \\boxed{2} and \\boxed{3}')?.answer).toBe('1, 2, 3');
    expect(extractBoxedAnswer('$y_1 = \\boxed{a} \\) and \\( y_2 = \\boxed{b}')?.answer).toBe('a, b');
  });

  it('keeps boxes apart when prose separates them, and dedupes repeats', () => {
    expect(extractBoxedAnswer('\\boxed{1} no no no no no \\boxed{2}')?.answer).toBe('2');
    expect(extractBoxedAnswer('\\boxed{840}.,but let me put this after explain.\n\\boxed{840}')?.answer).toBe('840');
  });

  it('keeps a percent word written after the box', () => {
    expect(extractBoxedAnswer('$\\boxed{28}$ pct')?.answer).toBe('28\\%');
  });

  it('lists every opener with its offsets', () => {
    const boxes = findBoxes('a \\boxed{1} b \\fbox{2}');
    expect(boxes.map((b) => b.content)).toEqual(['1', '2']);
    expect(boxes.every((b) => b.closed)).toBe(true);
  });
});
