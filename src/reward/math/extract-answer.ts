/**
 * General answer extraction from a free-form response (math-verify style), for evaluation and
 * for reading reference solutions. The RL reward does NOT use these fallbacks: it requires a box
 * (`extractLastBoxed`), since crediting any number in the text is a reward hack.
 */
import { extractBoxedAnswer, findBoxes } from './extract-boxed.js';
import { normalizeMathAnswer } from './normalize.js';
import { parseLatex } from './scalar.js';
import { isSpaceCode } from '../../util/is-space.js';

const ANSWER_MARKER = /(?:\banswer\s*(?:is|:|：)?|\bréponse\s*:|\brespuesta\s*:|\bantwort\s*:|\bответ\s*:|答案\s*[:：]?)\s*/giu;
const NUMBER = /(?<![A-Za-z\d.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:[.,]\d+)?(?:\s*\/\s*\d+)?(?:\s*(?:\\%|%))?|(?<![A-Za-z\d])-?\.\d+|\\frac\{\d+\}\{\d+\}/g;

/**
 * Longest candidate answer considered, in characters: a longer one is prose or a runaway box, never a final answer,
 * and normalising and parsing it would cost time on the caller's thread.
 */
const MAX_CANDIDATE_CHARS = 300;

/**
 * Fallback candidates (math environments and bare numbers) tried, rightmost first. Each costs a normalisation and a
 * parse, so a reply of thousands of `$$` must not try them all; an answer is near the end of a reply.
 */
const MAX_FALLBACK_CANDIDATES = 16;

/**
 * Cuts a sentence-final tail such as `. I hope it is correct.` and trailing punctuation. Linear: what
 * `s.replace(/\s*I hope it is correct[\s\S]*$/i, '').replace(/[\s.。]+$/, '')` did, without rescanning long runs of
 * spaces from each of their characters (quadratic).
 */
function trimTail(s: string): string {
  const hope = /I hope it is correct/i.exec(s);
  let end = s.length;
  if (hope !== null) {
    end = hope.index;
    while (end > 0 && isSpaceCode(s.charCodeAt(end - 1))) end--;
  }
  while (end > 0 && (isSpaceCode(s.charCodeAt(end - 1)) || s[end - 1] === '.' || s[end - 1] === '。')) end--;
  return s.slice(0, end).trim();
}

/** One math environment: its content (between the delimiters), where it starts and where it ends. */
interface MathEnv {
  readonly content: string;
  readonly index: number;
  readonly end: number;
}

/** `indexOf(needle, i)` for non-decreasing `i`, each character scanned at most once over all calls. */
function forwardFinder(text: string, needle: string): (i: number) => number {
  let from = -1;
  let at = -1;
  return (i) => {
    if (from === -1 || i < from || (at !== -1 && at < i)) {
      at = text.indexOf(needle, i);
      from = i;
    }
    return at;
  };
}

/**
 * The `$$…$$`, `\[…\]`, `\(…\)` (one line) and `$…$` (one line, no `$` inside) environments of `text`, left to
 * right, as the global pattern `/\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([^\n]+?)\\\)|\$([^$\n]+?)\$/g` finds them,
 * in linear time (that pattern rescans to the end of the text from every opener without a closer: quadratic).
 */
function mathEnvs(text: string): MathEnv[] {
  const out: MathEnv[] = [];
  const dd = forwardFinder(text, '$$');
  const sq = forwardFinder(text, '\\]');
  const rd = forwardFinder(text, '\\)');
  const dollar = forwardFinder(text, '$');
  const nl = forwardFinder(text, '\n');
  const before = (close: number, limit: number) => close !== -1 && (limit === -1 || close < limit);
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const d = text[i + 1];
    let close = -1;
    let open = 1;
    if (c === '$' && d === '$' && (close = dd(i + 3)) !== -1) open = 2;
    else if (c === '\\' && d === '[' && (close = sq(i + 3)) !== -1) open = 2;
    else if (c === '\\' && d === '(' && before((close = rd(i + 3)), nl(i + 2))) open = 2;
    else if (c === '$' && d !== undefined && d !== '$' && d !== '\n' && before((close = dollar(i + 2)), nl(i + 1))) open = 1;
    else close = -1;
    if (close === -1) {
      i++;
      continue;
    }
    out.push({ content: text.slice(i + open, close), index: i, end: close + open });
    i = close + open;
  }
  return out;
}

/**
 * The last "final answer … is" marker of `text` (case-insensitive; `is` as a word on the same line, then spaces and
 * an optional colon), as the pattern `final answer[^\n]*?\bis\b\s*:?\s*` (flags `gi`) would find it, in linear time.
 */
function lastFinalAnswer(text: string): { index: number; end: number } | null {
  const opener = /final answer/gi;
  const is = /\bis\b/gi;
  const nl = forwardFinder(text, '\n');
  let isAt = -2;
  let isFrom = -1;
  let last: { index: number; end: number } | null = null;
  for (let m = opener.exec(text); m !== null; m = opener.exec(text)) {
    const from = m.index + m[0].length;
    if (isAt === -2 || from < isFrom || (isAt !== -1 && isAt < from)) {
      is.lastIndex = from;
      isAt = is.exec(text)?.index ?? -1;
      isFrom = from;
    }
    const lineEnd = nl(from);
    if (isAt === -1) break;
    if (lineEnd !== -1 && isAt > lineEnd) {
      opener.lastIndex = m.index + 1;
      continue;
    }
    let end = isAt + 2;
    while (end < text.length && isSpaceCode(text.charCodeAt(end))) end++;
    if (text[end] === ':') end++;
    while (end < text.length && isSpaceCode(text.charCodeAt(end))) end++;
    last = { index: m.index, end };
    opener.lastIndex = end;
  }
  return last;
}

/** `s` without leading and trailing quotes (`"`, `'`, `“`, `”`, each optionally backslash-escaped). Linear. */
function stripQuotes(s: string): string {
  const quote = (ch: string | undefined) => ch === '"' || ch === "'" || ch === '“' || ch === '”';
  let a = 0;
  for (;;) {
    if (quote(s[a])) a++;
    else if (s[a] === '\\' && quote(s[a + 1])) a += 2;
    else break;
  }
  let b = s.length;
  while (b > a && quote(s[b - 1])) {
    b--;
    if (b > a && s[b - 1] === '\\') b--;
  }
  return s.slice(a, b);
}

/** True when `candidate` normalises to something compute-engine (or the text rules) can read. */
function plausible(candidate: string): boolean {
  if (candidate.length > MAX_CANDIDATE_CHARS) return false;
  const n = normalizeMathAnswer(candidate);
  if (n === '' || proseLike(n)) return false;
  if (/^\\text\{[^{}]*\}$|^[A-Za-z]+$/.test(n)) return true;
  return parseLatex(n) !== null || /[,;]|\\in|\\cup|\\le|\\ge|=|<|>|\\pm|\\begin/.test(n);
}

/** The last "answer:"-style marker of `text` (see `ANSWER_MARKER`). */
function lastAnswerMarker(text: string): { index: number; end: number } | null {
  ANSWER_MARKER.lastIndex = 0;
  let last: { index: number; end: number } | null = null;
  for (let m = ANSWER_MARKER.exec(text); m !== null; m = ANSWER_MARKER.exec(text)) last = { index: m.index, end: m.index + m[0].length };
  return last;
}

/** Content after the last "final answer … is" / "answer:" marker, up to the end of its sentence. */
function afterMarker(text: string, marker: { index: number; end: number } | null): { answer: string; at: number } | null {
  if (marker === null) return null;
  let rest = trimTail(text.slice(marker.end).split(/\n\s*\n/)[0] ?? '');
  const envs = mathEnvs(rest);
  const firstEnv = envs[0];
  if (firstEnv !== undefined && firstEnv.index < 12) {
    // `$12 $ and $13 $` → the envs joined; `$28 \%$.` → its content.
    rest = `$${envs.map((e) => e.content).join(envs.length > 1 ? ', ' : '')}$`;
  } else {
    rest = rest.split(/\.(?:\s|$)|\n|<\|/)[0] ?? rest;
  }
  rest = stripQuotes(rest).replace(/\*\*/g, '').trim();
  return rest === '' ? null : { answer: rest, at: marker.index };
}

/**
 * Whether a normalised candidate reads as prose: a run of 4+ Latin letters outside LaTeX commands
 * and `\text{}` (`Soucis`, `Janeth aura`), or any non-Latin letter (`每份应该是`).
 */
function proseLike(normalized: string): boolean {
  const stripped = normalized.replace(/\\(?:text|begin|end)\{[^{}]*\}/g, ' ').replace(/\\[a-zA-Z]+/g, ' ');
  return /[A-Za-z]{4,}/.test(stripped) || /[^\p{ASCII}]/u.test(stripped.replace(/[²³°×÷−–≤≥≠±√π∞…·]/gu, ''));
}

/** Whether a whole response is short enough to be the answer itself (`1 - \sqrt{2}`, `2 1/4`). */
function formulaLike(text: string): boolean {
  if (text.length > 200) return false;
  const stripped = text.replace(/\\[a-zA-Z]+(\{[^{}]*\})?/g, ' ');
  const words = stripped.match(/(?<![\\A-Za-z])[A-Za-z]{2,}(?![A-Za-z(])/g) ?? [];
  return words.length <= 1 && text.length <= 200;
}

/** Options of {@link extractAnswer}. */
export interface ExtractAnswerOptions {
  /**
   * What an unclosed box means. `'none'`: the reply stopped inside its answer, so it has no answer (right for a
   * model's reply). `'rest'`: the box takes the rest of the text, as math-verify does (for reference solutions,
   * whose missing brace is a typo, never a cut). @default 'none'
   */
  readonly unclosedBox?: 'none' | 'rest';
}

const ASSIGNMENT = /^\s*([A-Za-z](?:_\{?\w+\}?)?)\s*=\s*([^=<>]+?)\s*$/;

/**
 * `$x = 2$ and $x = -3$` → `x = 2, x = -3`: the math environments ending at `envs[i]` that assign the same
 * variable and are separated only by `,` / `and` / `or`, joined as one list of solutions. `null` when there is no
 * such run of two or more (different variables, prose in between, or plain values stay apart).
 */
/** Most environments joined into one solution list. */
const MAX_RUN = 64;

function solutionRun(text: string, envs: readonly { body: string; start: number; end: number }[], i: number): string | null {
  const last = envs[i];
  const name = last === undefined ? undefined : ASSIGNMENT.exec(last.body)?.[1];
  if (last === undefined || name === undefined) return null;
  const run = [last.body.trim()];
  for (let j = i - 1; j >= Math.max(0, i - MAX_RUN); j--) {
    const cur = envs[j]!;
    if (envs[j + 1]!.start - cur.end > 64) break;
    const gap = text.slice(cur.end, envs[j + 1]!.start);
    if (!/^\s*(?:,|;|\band\b|\bor\b|,\s*(?:and|or)\b)\s*$/i.test(gap)) break;
    if (ASSIGNMENT.exec(cur.body)?.[1] !== name) break;
    run.unshift(cur.body.trim());
  }
  return run.length >= 2 ? run.join(', ') : null;
}

/**
 * Extracts the final answer from a response. Priority (first hit wins):
 * 1. the rightmost of: the last `\boxed{}`/`\fbox{}` run (adjacent boxes joined into a list), or the
 *    content after the last "final answer … is";
 * 2. the content after the last "answer is" / "answer:" (also `réponse:`, `答案：`, …);
 * 3. the whole text, when it reads as a formula (`1 - \sqrt{2}`, `2 1/4`, `28 pct`);
 * 4. the rightmost `$…$`, `$$…$$`, `\[…\]`, `\(…\)` environment (joined with the environments before it when they
 *    all assign the same variable and only `,`/`and`/`or` part them: `$x=2$ and $x=-3$` → `x = 2, x = -3`) or bare
 *    number (`2,74`, `1/3`, `100%`) that parses, among the 16 rightmost; numbers glued to Latin letters (`AZYUK2A`) are ignored.
 * A reply with an unclosed box (`… \boxed{12`) has no answer (`null`): it stopped inside it (unless
 * `unclosedBox: 'rest'`).
 * Candidates that do not parse are skipped. Answers taken from a box or a math environment are
 * returned wrapped in `$…$` so the normaliser reads `2,3` there as a list (LaTeX), while a bare
 * `1,22` in prose stays a decimal comma.
 * @returns the answer string (not normalised), or `null` when nothing plausible is found.
 */
export function extractAnswer(text: string, options: ExtractAnswerOptions = {}): string | null {
  // An unclosed box runs to the end of the text: the reply stopped inside its answer (`\boxed{12`), so it has none.
  if (options.unclosedBox !== 'rest' && findBoxes(text).some((b) => !b.closed)) return null;
  const boxed = extractBoxedAnswer(text);
  const final = afterMarker(text, lastFinalAnswer(text));
  const first = [boxed === null ? null : { answer: `$${boxed.answer}$`, at: boxed.end }, final]
    .filter((c): c is { answer: string; at: number } => c !== null && plausible(c.answer))
    .sort((a, b) => b.at - a.at)[0];
  if (first !== undefined) return first.answer;
  const marked = afterMarker(text, lastAnswerMarker(text));
  if (marked !== null) {
    if (plausible(marked.answer)) return marked.answer;
    const num = marked.answer.match(NUMBER)?.[0];
    if (num !== undefined) return num;
  }
  if (formulaLike(text) && plausible(text)) return text.trim();
  const candidates: { answer: string; end: number }[] = [];
  // Solution runs are joined only for the candidates that can be tried (the rightmost ones): linear on any input.
  const envs = mathEnvs(text).map((m) => ({ body: m.content, start: m.index, end: m.end }));
  envs.forEach((e, i) => {
    const run = i >= envs.length - MAX_FALLBACK_CANDIDATES ? solutionRun(text, envs, i) : null;
    candidates.push({ answer: `$${run ?? e.body}$`, end: e.end });
  });
  for (const m of text.matchAll(NUMBER)) candidates.push({ answer: m[0], end: (m.index ?? 0) + m[0].length });
  candidates.sort((a, b) => b.end - a.end);
  for (const c of candidates.slice(0, MAX_FALLBACK_CANDIDATES)) if (plausible(c.answer)) return c.answer.trim();
  return null;
}
