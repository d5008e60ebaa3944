import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractAnswer } from '../../../src/reward/math/extract-answer.js';
import { extractLastBoxed } from '../../../src/reward/math/extract-boxed.js';
import { mathEquivalentSync } from '../../../src/reward/math/equivalent.js';

interface Case {
  gold: string;
  pred: string;
  expected: boolean;
  category: string;
  note: string;
}

const repoRoot = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const CASES = path.resolve(repoRoot, 'test/fixtures/math-equivalence.jsonl');

/**
 * Scores one case. `reward_extraction:*` cases follow the reward rule exactly as `mathReward` applies it (gold
 * boxed; the last `\boxed{}` in the final 300 characters joined with the boxes right before it when only separators
 * part them, no fallback); the others use the general extractor on both sides. A note of the
 * form `float_rounding=N` is the case's own comparison setting.
 */
function judge(c: Case): boolean {
  const fr = /float_rounding=(\d+)/.exec(c.note)?.[1];
  const options = fr === undefined ? {} : { floatRounding: Number(fr) };
  const reward = c.category.startsWith('reward_extraction:');
  // A reference with an unclosed box has a typo, not a cut: its box takes the rest of the text.
  const gold = reward ? `\\boxed{${c.gold}}` : extractAnswer(c.gold, { unclosedBox: 'rest' });
  const boxed = reward ? extractLastBoxed(c.pred, { window: 300, joinAdjacent: true }) : null;
  const pred = reward ? (boxed === null ? null : `\\boxed{${boxed}}`) : extractAnswer(c.pred);
  if (gold === null || pred === null) return false;
  return mathEquivalentSync(gold, pred, options).equal;
}

describe('math-equivalence case file', () => {
  // Hazard: a silently missing case file would make the gate pass vacuously; it must fail instead.
  it('exists in the repository', () => {
    expect(existsSync(CASES), `missing ${CASES}`).toBe(true);
  });

  it('agrees with `expected` on at least 95% of all cases', () => {
    const cases = readFileSync(CASES, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Case);
    expect(cases.length).toBeGreaterThan(200);
    const failing = new Map<string, string[]>();
    let agree = 0;
    cases.forEach((c, i) => {
      if (judge(c) === c.expected) agree++;
      else
        failing.set(c.category, [
          ...(failing.get(c.category) ?? []),
          `#${i} expected ${c.expected}: ${JSON.stringify(c.gold).slice(0, 60)} vs ${JSON.stringify(c.pred).slice(-60)}`,
        ]);
    });
    const rate = agree / cases.length;
    const lines = [...failing].map(([cat, list]) => `  ${cat}:\n${list.map((l) => `    ${l}`).join('\n')}`);
    console.log(`math-equivalence agreement: ${agree}/${cases.length} = ${(100 * rate).toFixed(1)}%\nfailing by category:\n${lines.join('\n')}`);
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });
});
