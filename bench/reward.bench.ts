/**
 * Math reward benchmark: checks/s and latency percentiles over the shared case file, in-thread and
 * through the worker pool, plus pathological inputs that must come back within the timeout.
 *
 *   npm run bench:reward        (env: WORKERS=2 TIMEOUT_MS=5000 REPS=3; 5000 ms is the reward default)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractAnswer } from '../src/reward/math/extract-answer.js';
import { extractLastBoxed } from '../src/reward/math/extract-boxed.js';
import { mathEquivalentSync } from '../src/reward/math/equivalent.js';
import { MathCheckPool } from '../src/reward/math/pool.js';

interface Case {
  gold: string;
  pred: string;
  expected: boolean;
  category: string;
}

const WORKERS = Number(process.env.WORKERS ?? 2);
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 5000);
const REPS = Number(process.env.REPS ?? 3);
const repoRoot = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const cases = readFileSync(path.resolve(repoRoot, 'test/fixtures/math-equivalence.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Case);

/** Answer pairs as the reward / evaluator would see them (extraction is timed separately). */
const pairs = cases.flatMap((c) => {
  const reward = c.category.startsWith('reward_extraction:');
  const gold = reward ? `\\boxed{${c.gold}}` : extractAnswer(c.gold, { unclosedBox: 'rest' });
  const box = reward ? extractLastBoxed(c.pred, { joinAdjacent: true }) : null;
  const pred = reward ? (box === null ? null : `\\boxed{${box}}`) : extractAnswer(c.pred);
  return gold === null || pred === null ? [] : [{ gold, pred }];
});

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const fmt = (x: number): string => x.toFixed(2);

// Extraction only.
{
  const t0 = performance.now();
  for (let r = 0; r < REPS; r++)
    for (const c of cases) {
      extractAnswer(c.pred);
      extractLastBoxed(c.pred);
    }
  const ms = performance.now() - t0;
  console.log(`extraction: ${fmt((REPS * cases.length) / (ms / 1000))} responses/s (${cases.length} cases × ${REPS})`);
}

// In-thread equivalence (first pass warms compute-engine and is reported separately).
{
  const lat: number[] = [];
  const w0 = performance.now();
  for (const p of pairs) mathEquivalentSync(p.gold, p.pred);
  const warmMs = performance.now() - w0;
  const t0 = performance.now();
  for (let r = 0; r < REPS; r++) {
    for (const p of pairs) {
      const s = performance.now();
      mathEquivalentSync(p.gold, p.pred);
      lat.push(performance.now() - s);
    }
  }
  const ms = performance.now() - t0;
  console.log(
    `in-thread: ${fmt(lat.length / (ms / 1000))} checks/s, p50 ${fmt(pct(lat, 0.5))} ms, p99 ${fmt(pct(lat, 0.99))} ms, max ${fmt(Math.max(...lat))} ms (${pairs.length} pairs × ${REPS}; cold first pass ${fmt(warmMs)} ms)`,
  );
}

// Worker pool.
const pool = new MathCheckPool({ size: WORKERS, timeoutMs: TIMEOUT_MS });
{
  await Promise.all(Array.from({ length: WORKERS }, () => pool.check('1', '1')));
  for (const p of pairs) await pool.check(p.gold, p.pred);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let r = 0; r < REPS; r++) {
    await Promise.all(
      pairs.map(async (p) => {
        const s = performance.now();
        await pool.check(p.gold, p.pred);
        lat.push(performance.now() - s);
      }),
    );
  }
  const ms = performance.now() - t0;
  console.log(
    `pool(${WORKERS} workers): ${fmt(lat.length / (ms / 1000))} checks/s; latency incl. queueing p50 ${fmt(pct(lat, 0.5))} ms, p99 ${fmt(pct(lat, 0.99))} ms`,
  );
  const serial: number[] = [];
  for (const p of pairs) {
    const s = performance.now();
    await pool.check(p.gold, p.pred);
    serial.push(performance.now() - s);
  }
  console.log(`pool one-at-a-time: p50 ${fmt(pct(serial, 0.5))} ms, p99 ${fmt(pct(serial, 0.99))} ms (includes message passing)`);
}

// Pathological inputs: must resolve within TIMEOUT_MS (+ overhead) without stalling the caller.
{
  const huge = Array.from({ length: 7000 }, (_, i) => `x^{${i}}`).join('+');
  const inputs: [string, string, string][] = [
    ['10^{10^{10^{10}}}', '1', '10^{10^{10^{10}}}'],
    ['10^{10^{10^{10}}} vs 10^{10^{10^{10}}}+1', '10^{10^{10^{10}}}', '10^{10^{10^{10}}}+1'],
    [`${(huge.length / 1024).toFixed(0)} KB polynomial`, huge, `${huge}+1`],
    ['50 KB nested parentheses', `${'('.repeat(25_000)}1${')'.repeat(25_000)}`, '1'],
    ['1/100000! (exact bignum evaluation, ~20 s in-thread)', '0', '\\frac{1}{100000!}'],
    ['\\sum_{k=1}^{10^9} k', '2', '\\sum_{k=1}^{10^{9}} k'],
  ];
  for (const [name, g, p] of inputs) {
    await pool.check('1', '1'); // a warm worker is ready (a replacement boots after each kill)
    const s = performance.now();
    const r = await pool.check(g, p);
    console.log(
      `pathological ${name}: ${r.status}${r.status === 'ok' ? ` (equal=${r.equal})` : ''} in ${fmt(performance.now() - s)} ms (timeout ${TIMEOUT_MS} ms)`,
    );
  }
}
await pool.close();
