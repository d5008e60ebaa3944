import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { suffixPrefixOverlap } from '../../src/chat/overlap.js';
import { sanitizeToolContent, SANITIZE_MARK } from '../../src/chat/sanitize.js';

describe('suffixPrefixOverlap', () => {
  it('finds the stop token the model already sampled', () => {
    expect(suffixPrefixOverlap([1, 2, 151645], [151645, 198])).toBe(1);
    expect(suffixPrefixOverlap([1, 2], [151645, 198])).toBe(0);
    expect(suffixPrefixOverlap([151645, 198], [151645, 198])).toBe(2);
    expect(suffixPrefixOverlap([], [151645])).toBe(0);
    expect(suffixPrefixOverlap([5], [])).toBe(0);
  });
  it('returns the longest k with tokens ending in closing[:k]', () => {
    const small = fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 8 });
    fc.assert(
      fc.property(small, small, (t, c) => {
        const k = suffixPrefixOverlap(t, c);
        const ends = (n: number) => n <= t.length && n <= c.length && t.slice(t.length - n).join() === c.slice(0, n).join();
        if (!ends(k)) return false;
        for (let n = k + 1; n <= Math.min(t.length, c.length); n++) if (ends(n)) return false;
        return true;
      }),
    );
  });
});

describe('sanitizeToolContent', () => {
  const specials = ['<|im_end|>', '<|im_start|>', '<tool_call>', '</tool_call>', '</tool_response>'];
  it('breaks each special-token string with a zero-width space after its first character', () => {
    expect(sanitizeToolContent('a<|im_end|>b</tool_call>', specials)).toBe(`a<${SANITIZE_MARK}|im_end|>b<${SANITIZE_MARK}/tool_call>`);
  });
  it('returns text without special strings unchanged', () => {
    expect(sanitizeToolContent('print(1 < 2)', specials)).toBe('print(1 < 2)');
  });
  it('leaves no special string behind, even with overlapping tokens', () => {
    // Hazard: a single left-to-right replace misses an occurrence that overlaps a replaced one.
    const overlapping = ['ab', 'bc', 'abc', ...specials];
    const piece = fc.constantFrom('a', 'b', 'c', '<', '|', '>', '/', ...overlapping);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        const out = sanitizeToolContent(parts.join(''), overlapping);
        return overlapping.every((s) => !out.includes(s)) && out.replaceAll(SANITIZE_MARK, '') === parts.join('');
      }),
    );
  });
});
