/**
 * General answer extraction from a free-form response (math-verify style), for evaluation and
 * for reading reference solutions. The RL reward does NOT use these fallbacks: it requires a box
 * (`extractLastBoxed`), since crediting any number in the text is a reward hack.
 */
import { extractBoxedAnswer, findBoxes } from './extract-boxed.js';
import { normalizeMathAnswer } from './normalize.js';
import { parseLatex } from './scalar.js';

const FINAL_ANSWER = /final answer[^\n]*?\bis\b\s*:?\s*/gi;
const ANSWER_MARKER = /(?:\banswer\s*(?:is|:|：)?|\bréponse\s*:|\brespuesta\s*:|\bantwort\s*:|\bответ\s*:|答案\s*[:：]?)\s*/giu;
const ENV = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([^\n]+?)\\\)|\$([^$\n]+?)\$/g;
const NUMBER = /(?<![A-Za-z\d.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:[.,]\d+)?(?:\s*\/\s*\d+)?(?:\s*(?:\\%|%))?|(?<![A-Za-z\d])-?\.\d+|\\frac\{\d+\}\{\d+\}/g;

/** Cuts a sentence-final tail such as `. I hope it is correct.` and trailing punctuation. */
function trimTail(s: string): string {
  return s.replace(/\s*I hope it is correct[\s\S]*$/i, '').replace(/[\s.。]+$/, '').trim();
}

/** True when `candidate` normalises to something compute-engine (or the text rules) can read. */
function plausible(candidate: string): boolean {
  const n = normalizeMathAnswer(candidate);
  if (n === '' || proseLike(n)) return false;
  if (/^\\text\{[^{}]*\}$|^[A-Za-z]+$/.test(n)) return true;
  return parseLatex(n) !== null || /[,;]|\\in|\\cup|\\le|\\ge|=|<|>|\\pm|\\begin/.test(n);
}

/** Content after the last "final answer … is" / "answer:" marker, up to the end of its sentence. */
function afterMarker(text: string, marker: RegExp): { answer: string; at: number } | null {
  marker.lastIndex = 0;
  let last: RegExpExecArray | null = null;
  for (let m = marker.exec(text); m !== null; m = marker.exec(text)) last = m;
  if (last === null) return null;
  const from = last.index + last[0].length;
  let rest = trimTail(text.slice(from).split(/\n\s*\n/)[0] ?? '');
  const envs = [...rest.matchAll(ENV)];
  const firstEnv = envs[0];
  if (firstEnv !== undefined && firstEnv.index !== undefined && firstEnv.index < 12) {
    // `$12 $ and $13 $` → the envs joined; `$28 \%$.` → its content.
    rest = `$${envs.map((e) => e[1] ?? e[2] ?? e[3] ?? e[4] ?? '').join(envs.length > 1 ? ', ' : '')}$`;
  } else {
    rest = rest.split(/\.(?:\s|$)|\n|<\|/)[0] ?? rest;
  }
  rest = rest.replace(/^(?:\\?["'“”])+|(?:\\?["'“”])+$/g, '').replace(/\*\*/g, '').trim();
  return rest === '' ? null : { answer: rest, at: last.index };
}

/**
 * Whether a normalised candidate reads as prose: a run of 4+ Latin letters outside LaTeX commands
 * and `\text{}` (`Soucis`, `Janeth aura`), or any non-Latin letter (`每份应该是`).
 */
function proseLike(normalized: string): boolean {
  const stripped = normalized.replace(/\\(?:text|begin|end)\{[^{}]*\}/g, ' ').replace(/\\[a-zA-Z]+/g, ' ');
  return /[A-Za-z]{4,}/.test(stripped) || /[^\x00-\x7F]/u.test(stripped.replace(/[²³°×÷−–≤≥≠±√π∞…·]/gu, ''));
}

/** Whether a whole response is short enough to be the answer itself (`1 - \sqrt{2}`, `2 1/4`). */
function formulaLike(text: string): boolean {
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
function solutionRun(text: string, envs: readonly { body: string; start: number; end: number }[], i: number): string | null {
  const last = envs[i];
  const name = last === undefined ? undefined : ASSIGNMENT.exec(last.body)?.[1];
  if (last === undefined || name === undefined) return null;
  const run = [last.body.trim()];
  for (let j = i - 1; j >= 0; j--) {
    const cur = envs[j]!;
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
 *    number (`2,74`, `1/3`, `100%`) that parses; numbers glued to Latin letters (`AZYUK2A`) are ignored.
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
  const final = afterMarker(text, FINAL_ANSWER);
  const first = [boxed === null ? null : { answer: `$${boxed.answer}$`, at: boxed.end }, final]
    .filter((c): c is { answer: string; at: number } => c !== null && plausible(c.answer))
    .sort((a, b) => b.at - a.at)[0];
  if (first !== undefined) return first.answer;
  const marked = afterMarker(text, ANSWER_MARKER);
  if (marked !== null) {
    if (plausible(marked.answer)) return marked.answer;
    const num = marked.answer.match(NUMBER)?.[0];
    if (num !== undefined) return num;
  }
  if (formulaLike(text) && plausible(text)) return text.trim();
  const candidates: { answer: string; end: number }[] = [];
  const envs = [...text.matchAll(ENV)].map((m) => ({ body: m[1] ?? m[2] ?? m[3] ?? m[4] ?? '', start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
  envs.forEach((e, i) => candidates.push({ answer: `$${solutionRun(text, envs, i) ?? e.body}$`, end: e.end }));
  for (const m of text.matchAll(NUMBER)) candidates.push({ answer: m[0], end: (m.index ?? 0) + m[0].length });
  candidates.sort((a, b) => b.end - a.end);
  for (const c of candidates) if (plausible(c.answer)) return c.answer.trim();
  return null;
}
