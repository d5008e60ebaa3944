/**
 * Issue 14 §1: every parser that reads model output on the trainer's thread runs in linear time. Each parser gets
 * adversarial inputs of the allowed size built from its own syntax and must finish within a bound that a linear pass
 * meets with room to spare and a quadratic one misses by far; the linear rewrites must return exactly what the
 * regular expressions they replaced returned.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAssistant } from '../../src/chat/parse-assistant.js';
import { sanitizeToolContent } from '../../src/chat/sanitize.js';
import { formatPassages, joinLines } from '../../src/env/search/format-passages.js';
import { extractFinalSql } from '../../src/env/sql/extract-sql.js';
import { exactMatch, extractTaggedAnswer } from '../../src/reward/exact-match.js';
import { extractAnswer } from '../../src/reward/math/extract-answer.js';
import { extractBoxedAnswer, extractLastBoxed, findBoxes } from '../../src/reward/math/extract-boxed.js';
import { removeTagBlocks, tagBlocks } from '../../src/util/tag-blocks.js';
import type { Example } from '../../src/types/example.js';
import type { Trajectory } from '../../src/types/trajectory.js';
import { fastestMs, LINEAR_BOUND_MS } from '../helpers/timing.js';

/** The allowed size of one reply in these tests: 100,000 characters (about 25k tokens). */
const SIZE = 100_000;
/**
 * A linear pass over 100 k characters takes 1–25 ms here (extractAnswer's marker search is the slowest); a quadratic
 * one takes seconds. The bound leaves room for a loaded machine.
 */
const BOUND_MS = LINEAR_BOUND_MS;

const reward = exactMatch();
const parsers: Record<string, (s: string) => unknown> = {
  extractFinalSql,
  formatPassages: (s) => formatPassages([{ id: '1', title: 't', text: s }]),
  parseAssistant: (s) => parseAssistant(s, { stopStrings: ['<|im_end|>'] }),
  parseAssistantCode: (s) => parseAssistant(s, { format: 'code' }),
  sanitizeToolContent: (s) => sanitizeToolContent(s, ['<|im_end|>', '<|im_start|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>']),
  extractTaggedAnswer,
  exactMatch: (s) => reward({ finalText: s, stopReason: 'answer' } as unknown as Trajectory, { id: 'x', question: 'q', answer: 'Paris' } as Example),
  extractAnswer,
  extractBoxedAnswer,
  extractLastBoxed: (s) => extractLastBoxed(s),
};

/** Fragments of every syntax these parsers look for, plus whitespace of each kind. */
const UNITS = [
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  ' \n',
  '<sql>',
  '</sql>',
  '```sql',
  '```sql ',
  '```',
  '<solution>',
  '<answer>',
  '</answer>',
  '<think>',
  '</think>',
  '$$',
  '$',
  '$a',
  '\\[',
  '\\(',
  '\\boxed{',
  '\\boxed ',
  '\\fbox{',
  '{',
  '}',
  '\\{',
  '\\\\',
  'final answer ',
  'final answer is ',
  'answer: ',
  'answer',
  '"',
  "'",
  '“',
  '\\"',
  ';',
  '; ',
  '.',
  '. ',
  '/*',
  '--',
  '<tool_call>',
  '</tool_call>',
  '{"name": "f", "arguments": {"a": "',
  '[',
  '\\text{',
  'I hope ',
  '1,',
  '1 /',
  '1.',
  '12',
  'a',
  'the ',
  '<|im_end|>',
  '<|',
  'x = ',
  '\\boxed{1} and ',
];
const TAILS = ['', 'x', '!', '}', '\n', '$', '</sql>', '</answer>'];

const fill = (a: string, b: string, tail: string) => {
  const half = Math.floor((SIZE - tail.length) / 2);
  return a.repeat(Math.floor(half / a.length)) + b.repeat(Math.floor(half / b.length)) + tail;
};

describe('parsers of model output run in linear time (issue 14 §1)', () => {
  for (const [name, parse] of Object.entries(parsers)) {
    it(`${name}: every repeated fragment of its syntax, at ${SIZE} characters, in < ${BOUND_MS} ms`, () => {
      parse('warm up ' + 'x'.repeat(100));
      for (const u of UNITS) {
        for (const tail of ['', '}']) {
          const s = fill(u, u, tail);
          expect(
            fastestMs(() => parse(s)),
            `${name} on ${JSON.stringify(u)}×N + ${JSON.stringify(tail)}`,
          ).toBeLessThan(BOUND_MS);
        }
      }
    });

    it(`${name}: property, two repeated fragments and a tail, in < ${BOUND_MS} ms`, () => {
      parse('warm up');
      fc.assert(
        fc.property(
          fc.constantFrom(...UNITS),
          fc.constantFrom(...UNITS),
          fc.constantFrom(...TAILS),
          (a, b, tail) => fastestMs(() => parse(fill(a, b, tail))) < BOUND_MS,
        ),
        { numRuns: 25 },
      );
    });
  }
});

// ---- Oracles: the regular-expression code the linear rewrites replaced (kept here to prove equal results) ----

function oldExtractFinalSql(text: string): string | undefined {
  let best: { pos: number; sql: string } | undefined;
  const consider = (re: RegExp) => {
    for (const m of text.matchAll(re)) {
      if (m.index !== undefined && (!best || m.index >= best.pos)) best = { pos: m.index, sql: m[1] ?? '' };
    }
  };
  consider(/```sql[^\S\n]*\n?([\s\S]*?)(?:```|$)/gi);
  consider(/<sql>([\s\S]*?)<\/sql>/gi);
  consider(/<solution>([\s\S]*?)<\/solution>/gi);
  const sql = best?.sql.trim().replace(/;\s*$/, '').trim();
  return sql ? sql : undefined;
}

function oldFindBoxes(text: string): { content: string; start: number; end: number; closed: boolean }[] {
  const matchBrace = (braceIndex: number): number => {
    let depth = 0;
    for (let i = braceIndex; i < text.length; i++) {
      const ch = text[i];
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === '{' || next === '}') {
          i++;
        }
      } else if (ch === '{') depth++;
      else if (ch === '}') {
        depth--;
        if (depth === 0) return i;
      }
    }
    return -1;
  };
  const out: { content: string; start: number; end: number; closed: boolean }[] = [];
  for (const m of text.matchAll(/\\(?:boxed|fbox)\s*\{/g)) {
    const brace = (m.index ?? 0) + m[0].length - 1;
    const close = matchBrace(brace);
    out.push(
      close < 0
        ? { content: text.slice(brace + 1), start: m.index ?? 0, end: text.length, closed: false }
        : { content: text.slice(brace + 1, close), start: m.index ?? 0, end: close + 1, closed: true },
    );
  }
  return out;
}

/** Short random replies made of the fragments that matter, so tags, fences and braces meet in every order. */
const reply = (pieces: readonly string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((a) => a.join(''));

describe('linear rewrites return what the patterns they replaced returned', () => {
  it('tagBlocks / removeTagBlocks equal the lazy global pattern (case-sensitive and not)', () => {
    const text = reply(['<b>', '</b>', '<B>', '</B>', 'x', ' ', '\n', '<', '/', 'b', '>']);
    fc.assert(
      fc.property(text, fc.boolean(), (t, ic) => {
        const re = new RegExp('<b>([\\s\\S]*?)</b>', ic ? 'gi' : 'g');
        const want = [...t.matchAll(re)].map((m) => [m.index, m[1]]);
        const got = [...tagBlocks(t, '<b>', '</b>', { ignoreCase: ic })].map((b) => [b.start, t.slice(b.contentStart, b.contentEnd)]);
        expect(got).toEqual(want);
        expect(removeTagBlocks(t, '<b>', '</b>', { ignoreCase: ic })).toBe(t.replace(re, ''));
      }),
      { numRuns: 2_000 },
    );
  });

  it('extractFinalSql equals the old pattern-based extraction', () => {
    const text = reply(['```sql', '```SQL', '```', 'sql', '<sql>', '</sql>', '<SQL>', '<solution>', '</solution>', 'SELECT 1', ';', ' ', '\t', '\n', 'x']);
    fc.assert(
      fc.property(text, (t) => {
        expect(extractFinalSql(t)).toBe(oldExtractFinalSql(t));
      }),
      { numRuns: 3_000 },
    );
  });

  it('joinLines equals replace(/\\s*\\n\\s*/g, " ")', () => {
    const text = reply([' ', '\n', '\t', '\r', '\u00a0', '\u2028', 'a', 'b c']);
    fc.assert(
      fc.property(text, (t) => {
        expect(joinLines(t)).toBe(t.replace(/\s*\n\s*/g, ' '));
      }),
      { numRuns: 3_000 },
    );
  });

  it('findBoxes equals scanning from each opener', () => {
    const text = reply(['\\boxed{', '\\boxed ', '\\fbox{', '{', '}', '\\{', '\\}', '\\', 'x', ' ', '\\boxed{1}']);
    fc.assert(
      fc.property(text, (t) => {
        expect(findBoxes(t)).toEqual(oldFindBoxes(t));
      }),
      { numRuns: 3_000 },
    );
  });

  it('extractTaggedAnswer keeps its answers on fixed cases', () => {
    expect(extractTaggedAnswer('<answer>a</answer> then <ANSWER> b </answer>')).toBe('b');
    expect(extractTaggedAnswer('<answer>a</answer><answer>unclosed')).toBe('a');
    expect(extractTaggedAnswer('no tags \\boxed{x}')).toBe('x');
  });
});
