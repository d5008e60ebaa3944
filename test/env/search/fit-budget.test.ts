import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fitCount, truncateHead, HEAD_TRUNCATION_MARKER } from '../../../src/env/search/index.js';
import { countTokens } from './make-ctx.js';

describe('truncateHead / fitCount', () => {
  it('returns text that fits unchanged and cuts longer text at the end with a marker', () => {
    expect(truncateHead('short', 10, countTokens)).toBe('short');
    const cut = truncateHead('x'.repeat(400), 20, countTokens);
    expect(cut.endsWith(HEAD_TRUNCATION_MARKER)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(20);
    expect(truncateHead('abc', 0, countTokens)).toBe('');
  });

  it('always fits the budget and keeps a prefix of the text (property)', () => {
    // Hazard: an observation over the tool-response budget breaks the trajectory token accounting.
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), fc.integer({ min: 0, max: 200 }), (text, budget) => {
        const out = truncateHead(text, budget, countTokens);
        expect(countTokens(out)).toBeLessThanOrEqual(Math.max(0, budget));
        const body = out.endsWith(HEAD_TRUNCATION_MARKER) && out !== text ? out.slice(0, -HEAD_TRUNCATION_MARKER.length) : out;
        expect(text.startsWith(body)).toBe(true);
      }),
    );
  });

  it('finds the largest count that fits', () => {
    const render = (n: number) => 'ab'.repeat(n);
    expect(fitCount(100, render, 10, countTokens)).toBe(20);
    expect(fitCount(5, render, 10, countTokens)).toBe(5);
  });
});
