import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractAnswer } from '../../../src/reward/math/extract-answer.js';
import { mathEquivalentSync } from '../../../src/reward/math/equivalent.js';
import { nearMisses } from './near-miss.js';

interface Case {
  gold: string;
  category: string;
}

const repoRoot = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const cases = readFileSync(path.resolve(repoRoot, 'test/fixtures/math-equivalence.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Case);

/** Every distinct gold answer of the case file, as the grader reads it (without the `$…$` wrapper). */
function fixtureGolds(): string[] {
  const golds = new Set<string>();
  for (const c of cases) {
    const g = c.category.startsWith('reward_extraction:') ? c.gold : extractAnswer(c.gold, { unclosedBox: 'rest' });
    if (g === null) continue;
    const bare = g
      .trim()
      .replace(/^\$([\s\S]*)\$$/, '$1')
      .trim();
    if (bare !== '') golds.add(bare);
  }
  return [...golds];
}

/** Extra golds rich in the shapes the fixture has few of (tuples, exponents, π, fractions, matrices, units). */
const EXTRA_GOLDS = [
  '(4,-1)',
  '(3, \\frac{\\pi}{2})',
  '(1, 2, 3)',
  '(-2, 5)',
  '(0, 7)',
  '\\left(\\frac{1}{5}, \\frac{1}{6}\\right)',
  '(2\\sqrt{3}, 4)',
  '[2, 5)',
  '(-\\infty, 3]',
  '[-1, 4]',
  '(1, 9)',
  '2^{10}',
  '3^{7}',
  'x^{3}+2x',
  '5^{-2}',
  '2^{100}',
  'e^{3}',
  '10^{6}',
  '\\frac{\\pi}{4}',
  '\\frac{3\\pi}{2}',
  '2\\pi',
  '\\frac{\\pi}{6}',
  '\\pi r^{2}',
  '\\frac{5}{7}',
  '\\frac{12}{5}',
  '-\\frac{3}{8}',
  '\\frac{\\sqrt{3}}{2}',
  '3\\sqrt{2}',
  '\\sqrt{17}',
  '1+\\sqrt{5}',
  '2+\\frac{1}{e}',
  '1-\\frac{1}{e}',
  '3+4i',
  '40\\%',
  '12.5',
  '0.75',
  '\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}',
  '\\begin{bmatrix}2&0\\\\1&5\\end{bmatrix}',
  '3:8',
  'x=2',
  'y = 7',
  '\\{1, 3, 5\\}',
  '\\{-2, 2\\}',
  '2, 5, 9',
  '-3, 2',
  '1:2:3',
  '(x,y)=(4,-1)',
  'x=2, x=-3',
  'a \\neq 5',
  '\\text{Odd}',
  '14400',
  '2024',
  '1/2004!',
  '\\frac{1}{2^{99}}',
  '\\log_{2} 5',
  '\\ln 3',
];

describe('near-miss answers are never judged equal', () => {
  // Hazard: a wrong answer rewarded teaches the policy to be wrong, the worst fault a reward can have.
  it('judges no derived wrong answer equal to its gold (at least 2,000 pairs from every gold)', () => {
    const golds = [...new Set([...fixtureGolds(), ...EXTRA_GOLDS])];
    expect(golds.length).toBeGreaterThan(200);
    let pairs = 0;
    const kinds = new Map<string, number>();
    const falsePositives: string[] = [];
    for (const gold of golds) {
      for (const m of nearMisses(gold)) {
        pairs++;
        kinds.set(m.kind.replace(/_\d+/, ''), (kinds.get(m.kind.replace(/_\d+/, '')) ?? 0) + 1);
        const r = mathEquivalentSync(`$${gold}$`, `$${m.pred}$`);
        if (r.equal) falsePositives.push(`${m.kind}: ${JSON.stringify(gold)} vs ${JSON.stringify(m.pred)}`);
      }
    }
    console.log(`near-miss pairs: ${pairs} from ${golds.length} golds; by kind: ${JSON.stringify(Object.fromEntries(kinds))}`);
    expect(falsePositives).toEqual([]);
    expect(pairs).toBeGreaterThanOrEqual(2000);
    for (const k of [
      'sign_flip',
      'off_by_one_value',
      'off_by_one_literal',
      'tuple_swapped',
      'exponent_changed',
      'pi_vs_half_pi',
      'fraction_inverted',
      'radians_as_degrees',
      'times_e',
      'times_i',
      'percent_tenfold',
    ]) {
      expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0);
    }
  }, 300_000);
});
