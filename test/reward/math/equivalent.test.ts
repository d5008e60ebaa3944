import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mathEquivalentSync } from '../../../src/reward/math/equivalent.js';

const eq = (g: string, p: string): boolean => mathEquivalentSync(g, p).equal;

describe('mathEquivalentSync: numbers', () => {
  // Hazard: a float tolerance would call two different 20-digit integers equal.
  it('compares big integers and rationals exactly', () => {
    expect(eq('12345678901234567890', '12345678901234567890')).toBe(true);
    expect(eq('12345678901234567890', '12345678901234567891')).toBe(false);
    expect(eq('2^{100}', '1267650600228229401496703205376')).toBe(true);
    expect(eq('\\frac{1}{2^{99}}', '\\frac{1}{2^{98}}')).toBe(false);
    expect(eq('\\frac{1}{2004!}', '\\frac{1}{2006!}')).toBe(false);
  });

  it('applies the decimal-literal policy', () => {
    expect(eq('\\frac{1}{2}', '0.5')).toBe(true);
    expect(eq('\\frac{1}{3}', '0.333333')).toBe(true);
    expect(eq('\\frac{1}{3}', '0.333')).toBe(false);
    expect(eq('\\pi', '3.14159265')).toBe(true);
    expect(eq('\\pi', '3.14')).toBe(false);
    expect(eq('33.3', '\\frac{100}{3}')).toBe(false);
    expect(mathEquivalentSync('\\frac{1}{3}', '0.3333', { floatRounding: 4 }).equal).toBe(true);
  });

  it('handles percent, degrees, scientific notation and mixed numbers', () => {
    expect(eq('50\\%', '0.5')).toBe(true);
    expect(eq('50\\%', '50')).toBe(true); // issue 13: the percent sign may be a unit mark
    expect(eq('50\\%', '5')).toBe(false);
    expect(eq('30^\\circ', '30')).toBe(true);
    expect(eq('\\frac{\\pi}{6}', '30^\\circ')).toBe(false); // issue 13: degrees are never radians
    expect(eq('1500000', '1.5e6')).toBe(true);
    expect(eq('6.02\\times 10^{23}', '6.02 \\cdot 10^{23}')).toBe(true);
    expect(eq('\\frac{9}{4}', '2 1/4')).toBe(true);
  });

  it('matches multiple-choice letters and text', () => {
    expect(eq('\\text{(A)}', 'A')).toBe(true);
    expect(eq('B', '(B)')).toBe(true);
    expect(eq('\\text{Evelyn}', '\\text{evelyn}')).toBe(true);
    expect(eq('A', 'B')).toBe(false);
  });
});

describe('mathEquivalentSync: expressions', () => {
  it('compares symbolic expressions by evaluation at random points', () => {
    expect(eq('x^2+2x+1', '(x+1)^2')).toBe(true);
    expect(eq('\\sin^2 x+\\cos^2 x', '1')).toBe(true);
    expect(eq('\\sqrt{1/n}', '\\frac{1}{\\sqrt{n}}')).toBe(true);
    expect(eq('x+2n+1', 'x+1')).toBe(false);
    expect(eq('4', '4\\sqrt{2}')).toBe(false);
    expect(eq('3+2i', '2i+3')).toBe(true);
  });
});

describe('mathEquivalentSync: structures', () => {
  it('compares tuples in order and sets without order', () => {
    expect(eq('(1,2)', '(2,1)')).toBe(false);
    expect(eq('\\{1,2\\}', '\\{2,1\\}')).toBe(true);
    expect(eq('(1,2),(3,4)', '(3,4),(1,2)')).toBe(true);
    expect(eq('10, 4, -2', '4, 10, -2')).toBe(true); // issue 13: a bare list of solutions is order-free
    expect(eq('(10, 4, -2)', '4, 10, -2')).toBe(false);
  });

  it('compares intervals by brackets and endpoints, unions without order', () => {
    expect(eq('[1,2)', '[1,2]')).toBe(false);
    expect(eq('(\\frac{3}{5},\\frac{8}{3}]', '(0.6,2.6667]')).toBe(true);
    expect(eq('(1,2)\\cup(3,4)', '(3,4)\\cup(1,2)')).toBe(true);
  });

  it('treats assignments, equations and inequalities', () => {
    expect(eq('2', 'x=2')).toBe(true);
    expect(eq('x=2', 'y=2')).toBe(false);
    expect(eq('x = 11', 'x = 5+5+1 = 7 =11')).toBe(true);
    expect(eq('a^2 + b = 0', '0')).toBe(false);
    expect(eq('2x+4y-3=0', 'y=-\\frac{1}{2}x+\\frac{3}{4}')).toBe(true);
    expect(eq('x \\le 1', '-x \\ge -1')).toBe(true);
    expect(eq('x > 5', 'x < 5')).toBe(false);
    expect(eq('(-\\infty, 3)', 'x<3')).toBe(true);
    expect(eq('x \\in [-2,7]', '-2 \\le x \\le 7')).toBe(true);
  });

  // Hazard: an inequality that is not `x op c` must still be compared as a set of reals, without
  // accepting a set that misses a piece.
  it('compares one-variable inequalities with intervals as point sets', () => {
    expect(eq('1\\leq|z|\\leq \\frac{3}{2}', 'z \\in [-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2}]')).toBe(true);
    expect(eq('1\\leq|z|\\leq \\frac{3}{2}', 'z \\in [1, \\frac{3}{2}]')).toBe(false);
    expect(eq('x^2 < 4', '-2 < x < 2')).toBe(true);
    expect(eq('x^2 \\le 4', '-2 < x < 2')).toBe(false);
  });

  it('compares matrices element-wise, evaluating matrix expressions', () => {
    expect(eq('\\begin{pmatrix}1\\\\2\\end{pmatrix}', '\\begin{pmatrix}2\\\\1\\end{pmatrix}')).toBe(false);
    expect(
      eq('\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}', '\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}'),
    ).toBe(true);
  });
});

describe('mathEquivalentSync: statuses and properties', () => {
  // Hazard: normalising or parsing a huge / deeply nested answer in-thread could take seconds.
  it('compares oversized or deeply nested answers as text without parsing', () => {
    const nested = `${'('.repeat(25_000)}1${')'.repeat(25_000)}`;
    expect(mathEquivalentSync(nested, nested)).toMatchObject({ equal: true, status: 'ok' });
    expect(mathEquivalentSync(nested, '1')).toMatchObject({ equal: false, status: 'ok', detail: 'oversized input compared as text' });
    expect(mathEquivalentSync('1', `${'. '.repeat(20_000)}x`)).toMatchObject({ equal: false });
  });

  it('reports unparseable sides', () => {
    expect(mathEquivalentSync('', '5')).toEqual({ equal: false, status: 'gold_unparseable' });
    expect(mathEquivalentSync('5', '\\frac{1}{')).toEqual({ equal: false, status: 'unparseable_prediction' });
  });

  // Property: an integer equals itself written as an equivalent fraction, and differs from its successor.
  it('is exact on random integers and fractions', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 1, max: 50 }), (n, k) => {
        expect(eq(`${n}`, `\\frac{${n * BigInt(k)}}{${k}}`)).toBe(true);
        expect(eq(`${n}`, `${n + 1n}`)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  // Property: equivalence is symmetric on plain numbers.
  it('is symmetric on decimal/fraction pairs', () => {
    fc.assert(
      fc.property(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 1, max: 16 }), (a, b) => {
        const frac = `\\frac{${a}}{${b}}`;
        const dec = (a / b).toFixed(8);
        expect(eq(frac, dec)).toBe(eq(dec, frac));
      }),
      { numRuns: 40 },
    );
  });
});
