import { beforeAll, describe, expect, it } from 'vitest';
import { boundObservation, headBytes, tailBytes, truncateTail, TRUNCATION_MARKER, utf8Bytes, MAX_BYTES_PER_TOKEN } from '../../src/env/index.js';
import { truncateHead } from '../../src/env/search/fit-budget.js';
import { sanitizeToolContent } from '../../src/chat/sanitize.js';
import type { ChatRenderer } from '../../src/chat/renderer.js';
import { loadQwen3 } from '../chat/qwen3-fixture.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** One token per UTF-16 unit: the worst case for surrogate pairs. */
const units = (s: string) => s.length;

describe('cuts fall on code points', () => {
  // Hazard (issue 13 §5): a cut between the two halves of 𠀀 leaves a lone surrogate the tokenizer turns into U+FFFD.
  it("never leaves a lone surrogate: 'a𠀀' repeated, budget 30", () => {
    const text = 'a𠀀'.repeat(200);
    for (let budget = 25; budget <= 40; budget++) {
      const tail = truncateTail(text, budget, units);
      expect(LONE_SURROGATE.test(tail), `tail at ${budget}`).toBe(false);
      expect(tail.length).toBeLessThanOrEqual(budget);
      expect(tail.startsWith(TRUNCATION_MARKER)).toBe(true);
      const head = truncateHead(text, budget, units);
      expect(LONE_SURROGATE.test(head), `head at ${budget}`).toBe(false);
      expect(head.length).toBeLessThanOrEqual(budget);
    }
    expect(LONE_SURROGATE.test(truncateTail(text, 30, units))).toBe(false);
  });

  it('cuts by bytes on code points, keeping at most the byte budget', () => {
    const text = 'é𠀀x'.repeat(50);
    for (let n = 0; n < 40; n++) {
      const t = tailBytes(text, n);
      const h = headBytes(text, n);
      expect(LONE_SURROGATE.test(t) || LONE_SURROGATE.test(h)).toBe(false);
      expect(utf8Bytes(t)).toBeLessThanOrEqual(n);
      expect(utf8Bytes(h)).toBeLessThanOrEqual(n);
      expect(text.endsWith(t) && text.startsWith(h)).toBe(true);
    }
    expect(tailBytes('short', 100)).toBe('short');
  });
});

describe('tool output is bounded before it is tokenised', () => {
  let r: ChatRenderer;
  beforeAll(async () => {
    r = await loadQwen3();
  });

  it('never encodes a 200 KB output whole, and cuts by tokens after the byte cut', () => {
    const big = 'x = 12345\n'.repeat(20_000); // 200 KB
    let encodedChars = 0;
    let longest = 0;
    const count = (s: string) => {
      encodedChars += s.length;
      longest = Math.max(longest, s.length);
      return r.encode(s).length;
    };
    const out = truncateTail(big, 512, count);
    expect(r.encode(out).length).toBeLessThanOrEqual(512);
    expect(out.endsWith('x = 12345\n')).toBe(true);
    // Only the byte-capped tail was ever tokenised (≤ 512 × 16 bytes per count).
    expect(longest).toBeLessThanOrEqual(512 * MAX_BYTES_PER_TOKEN + TRUNCATION_MARKER.length);
    expect(encodedChars).toBeLessThan(big.length);
  });

  it("never leaves a lone surrogate with the real tokenizer either ('a𠀀' repeated, budget 30)", () => {
    const text = 'a𠀀'.repeat(300);
    const count = (s: string) => r.countObservationTokens!(s);
    const tail = truncateTail(text, 30, count);
    const head = truncateHead(text, 30, count);
    for (const out of [tail, head]) {
      expect(LONE_SURROGATE.test(out)).toBe(false);
      expect(count(out)).toBeLessThanOrEqual(30);
      expect(out).toMatch(/𠀀/);
    }
  });

  it('counts tokens after special-token escaping', () => {
    // Each <|im_end|> is one token raw but several once escaped in the rendered tool message.
    const text = 'ok <|im_end|>\n'.repeat(100);
    const budget = 60;
    const byRenderer = truncateTail(text, budget, (s) => r.countObservationTokens!(s));
    expect(r.encode(sanitizeToolContent(byRenderer, r.specialTokens)).length).toBeLessThanOrEqual(budget);
    // Counting raw tokens would overrun the budget once rendered.
    const raw = truncateTail(text, budget, (s) => r.encode(s).length);
    expect(r.encode(sanitizeToolContent(raw, r.specialTokens)).length).toBeGreaterThan(budget);
  });

  it('bounds any environment output and keeps only what the model saw plus its size', () => {
    const big = 'y'.repeat(200_000);
    const out = boundObservation(
      {
        observation: [
          { role: 'tool', content: big },
          { role: 'user', content: 'fine' },
        ],
        exec: { status: 'ok', exitCode: 0, stdout: big, stderr: '', truncated: false, wallMs: 1 },
      },
      100,
      (s) => s.length,
    );
    expect(out.truncated).toBe(true);
    expect(out.bytes).toBe(200_004);
    expect(out.observation[0]!.content.length).toBeLessThanOrEqual(100);
    expect(out.observation[1]!.content).toBe('fine');
    expect(out.exec!.stdout.length).toBe(100 * MAX_BYTES_PER_TOKEN);
    expect(out.exec!.truncated).toBe(true);
    // The env's own figure wins when it cut the output itself.
    expect(boundObservation({ observation: [{ role: 'tool', content: 'cut' }], rawBytes: 9_999 }, 100, (s) => s.length).bytes).toBe(9_999);
  });
});
