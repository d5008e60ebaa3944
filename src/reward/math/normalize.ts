/**
 * LaTeX answer normaliser: a small, own port of the rules of latex2sympy2_extended's
 * `normalize_latex` (huggingface/latex2sympy2_extended `src/latex2sympy2_extended/math_normalization.py`) plus fixes for compute-engine pitfalls
 * (`1,000` → tuple, `\$5` → error, `30^\circ` → radians, `5\text{ cm}` → quantity).
 */
import { findBoxes } from './extract-boxed.js';

/** What {@link normalizeDetailed} found while normalising. */
export interface NormalizedAnswer {
  /** The normalised LaTeX. */
  readonly text: string;
  /** A degree mark (`^\circ`, `°`, `\text{ degrees}`) was removed. */
  readonly degrees: boolean;
}

/** Unit words removed when they trail a value (`5 cm`, `125 miles`, `10 ways`). */
const UNIT_WORDS = [
  'km',
  'cm',
  'mm',
  'm',
  'meters?',
  'metres?',
  'kilometers?',
  'centimeters?',
  'millimeters?',
  'miles?',
  'feet',
  'foot',
  'ft',
  'inch(?:es)?',
  'yards?',
  'units?',
  'square',
  'sq',
  'degrees?',
  'dollars?',
  'cents?',
  'euros?',
  'yuan',
  'rs',
  'hours?',
  'hrs?',
  'minutes?',
  'mins?',
  'seconds?',
  'secs?',
  'days?',
  'weeks?',
  'months?',
  'years?',
  'ways',
  'points?',
  'people',
  'persons?',
  'students?',
  'kg',
  'g',
  'grams?',
  'kilograms?',
  'pounds?',
  'lbs?',
  'ounces?',
  'oz',
  'liters?',
  'litres?',
  'ml',
  'l',
  'mph',
  'kmh',
  'times',
  'items?',
  'pieces?',
  'marbles?',
  'apples?',
  'books?',
  'cookies?',
  'boxes',
  'sheep',
  'cars?',
  'tickets?',
  'steps?',
  'digits?',
  'numbers?',
  'integers?',
  'values?',
  'solutions?',
  'pairs?',
  'triangles?',
  'squares?',
  'edges?',
  'vertices',
  'faces?',
  'balls?',
  'coins?',
  'cups?',
  'gallons?',
  'tons?',
  'calories',
  'bottles?',
  'candies',
  'candles?',
];
const UNIT_TAIL = new RegExp(`(?<=[\\d}).])\\s*(?:\\\\text\\{\\s*)?(?:${UNIT_WORDS.join('|')})(?:\\s*\\})?(?:\\^\\{?[23]\\}?|²|³)?\\s*$`, 'i');
const DEGREE_TAIL = /(?<=[\d}).])\s*(?:\\text\{\s*)?degrees?(?:\s*\})?\s*$/i;

const ROW_BREAK = '\u0000';

/** Replaces `\cmd12` / `\cmd1{x}` short forms with braced arguments (`\frac12` → `\frac{1}{2}`). */
function fixShortArgs(s: string): string {
  let out = s.replace(/\\frac\s*(\d)\s*(\d)/g, '\\frac{$1}{$2}');
  out = out.replace(/\\frac\s*(\d)\s*(?=\{)/g, '\\frac{$1}');
  out = out.replace(/\\frac(\{[^{}]*\})\s*(\d)/g, '\\frac$1{$2}');
  out = out.replace(/\\frac\s*([a-zA-Z])\s*([a-zA-Z\d])/g, '\\frac{$1}{$2}');
  out = out.replace(/\\sqrt\s*(\d+|[a-zA-Z])(?![a-zA-Z{])/g, '\\sqrt{$1}');
  return out;
}

/** Strips a wrapper `\cmd{…}` around the whole string (e.g. `\boxed{…}`, `\text{…}`). */
function unwrapWhole(s: string, cmd: RegExp): string {
  const m = cmd.exec(s);
  if (m === null || m.index !== 0) return s;
  let depth = 0;
  const open = m[0].length - 1;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}') {
      depth--;
      if (depth === 0) return i === s.length - 1 ? s.slice(open + 1, i) : s;
    }
  }
  return s;
}

/** Text allowed around and between the boxes of a box list: separators, spacing, `and`/`or`, `x =` lead-ins. */
const BOX_GAP = /^(?:[\s,;.:]|\\q?quad|\\[,;: !]|\\text\{\s*(?:and|or|,)?\s*\}|\band\b|\bor\b|[A-Za-z](?:_\{?\w+\}?)?\s*=)*$/;

/**
 * `\boxed{3}, \boxed{5}` / `\boxed{3} and \boxed{5}` → `3, 5`: several closed, non-nested boxes with only
 * separators around and between them are one list answer. Anything else is returned unchanged.
 */
function joinBoxList(s: string): string {
  const boxes = findBoxes(s);
  if (boxes.length < 2) return s;
  const outer = boxes.filter((b, i) => !boxes.slice(0, i).some((a) => b.start < a.end));
  if (outer.length < 2 || outer.some((b) => !b.closed)) return s;
  const gaps = [s.slice(0, outer[0]!.start), ...outer.slice(1).map((b, i) => s.slice(outer[i]!.end, b.start)), s.slice(outer[outer.length - 1]!.end)];
  if (!gaps.every((g) => BOX_GAP.test(g))) return s;
  return outer.map((b) => b.content.trim()).join(', ');
}

/**
 * Full normalisation with flags. Steps, in order: literal double backslashes (`\\frac` from raw
 * strings) → single; drop `$`, `\(`/`\)`, `\[`/`\]`, `\displaystyle`, `\left`/`\right`; a list of boxes with only
 * separators between them (`\boxed{3}, \boxed{5}`) → their contents as one list; a whole-string `\boxed{}`; spacing (`\!` eats following spaces, `\,` between digits joins a thousands group,
 * `\quad`, `\ `, `~`); `\dfrac`/`\tfrac`/`\cfrac` → `\frac`, `\frac12`, `\sqrt3`; `\mathrm`/`\textbf`/
 * `\mbox`/… → `\text`; `\$` and currency; degree marks (flagged); percent words and `%` → `\%`;
 * trailing units; trailing period; relation spellings (`>=`, `\geq`, `\gt`, `!=`, `≠`, `≤`, `≥`) unified; `−` → `-`;
 * `*` → `\cdot`; `infinity` → `\infty`; MCQ letters (`(B)`, `\text{B}`) → `B`; whole-string number
 * formats: thousands separators (`1,000`, `1 000`, `12,000,023`), decimal comma (`1000,99`, only
 * outside math delimiters: `$2,3$` is a list),
 * leading `.5`, plain mixed numbers (`2 1/4` → `2+\frac{1}{4}`), a whole-string `1.5e6` → `1.5\times10^{6}`; inside
 * an expression `2e+1` → `2\cdot e+1` (Euler's number, never scientific notation).
 */
export function normalizeDetailed(latex: string): NormalizedAnswer {
  let s = latex;
  let degrees = false;
  // Inside math delimiters a comma separates list items; in plain text `1,22` is a decimal comma.
  const mathContext = /\$|\\[([]|\\boxed|\\fbox/.test(latex);
  if (!/\\begin\{/.test(s)) s = s.replace(/\\\\(?=[a-zA-Z{}%$,!])/g, '\\');
  s = s.replace(/[\t\n\r\f]/g, (c) => (c === '\f' ? '\\f' : ' '));
  s = s
    .replace(/\\[()[\]]/g, ' ')
    .replace(/\$/g, ' ')
    .replace(/\\displaystyle|\\textstyle/g, '');
  s = s.trim();
  s = joinBoxList(s);
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = unwrapWhole(s, /\\(?:boxed|fbox)\s*\{/).trim();
  }
  s = s.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\s*(\\[{}|]|[()[\]|.])/g, (_m, d: string) => (d === '.' ? '' : d));
  // Protect `\\` (matrix row breaks) from the spacing rules below.
  s = s.replace(/\\\\/g, ROW_BREAK);
  s = s.replace(/\\!\s*/g, '');
  s = s.replace(/(\d)\s*\\[,;:]\s*(?=\d{3}(?!\d))/g, '$1');
  s = s.replace(/\\q?quad|\\[,;: ]|~/g, ' ');
  s = s.replace(/\{,\}/g, ',');
  s = s.split(ROW_BREAK).join('\\\\');
  s = s.replace(/\\[dtc]frac/g, '\\frac');
  s = fixShortArgs(s);
  // `\mathrm{e}` (Euler's number), `\mathrm{i}` (the imaginary unit) and `\mathrm{d}` (the differential) are
  // constants/operators, not units: unwrap them before `\mathrm` becomes `\text` (a trailing `\text{…}` is a unit).
  s = s.replace(/\\(?:mathrm|mathit|operatorname|text|textrm|textnormal)\s*\{\s*([eid])\s*\}/g, (_m, c: string) => `{${c}}`);
  s = s.replace(/\\(?:mathrm|mathbf|mathit|mathsf|textbf|textit|textrm|textnormal|textsf|mbox|operatorname)\s*\{/g, '\\text{');
  s = s.replace(/\\text\s*\{\s*\}/g, '');
  s = s.replace(/\\\$|[€£¥₹]/g, '').replace(/^\s*(?:US)?\$\s*/, '');
  if (/\^\s*\{?\s*\\circ\s*\}?|°|\\degree/.test(s)) {
    degrees = true;
    s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|°|\\degree/g, '');
  }
  if (DEGREE_TAIL.test(s)) {
    degrees = true;
    s = s.replace(DEGREE_TAIL, '');
  }
  s = s.replace(/\s*\\text\{\s*(?:percent|percentage|pct)\s*\}|\s*\b(?:percent|percentage|pct)\b/gi, '\\%');
  s = s.replace(/(?<!\\)%/g, '\\%');
  s = s
    .trim()
    .replace(/[\s.,;。，]+$/, '')
    .trim();
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(UNIT_TAIL, '').trim();
  }
  // A trailing `\text{…}` after a value is a unit (`15\text{ cm}^2`, `0.06\text{ yuan}` keeps the value).
  s = s.replace(/(?<=[\d}).])\s*\\text\{[^{}]*\}(?:\^\{?[23]\}?)?\s*$/, '').trim();
  s = s.replace(/\\text\{\s*(and|or)\s*\}/g, ' $1 ');
  s = s.replace(/\\lt\b/g, '<').replace(/\\gt\b/g, '>');
  s = s.replace(/≠/g, '\\ne ').replace(/≤|⩽/g, '\\le ').replace(/≥|⩾/g, '\\ge ').replace(/[−–]/g, '-').replace(/·/g, '\\cdot ');
  s = s.replace(/<=|\\leq?slant|\\leq(?![a-zA-Z])/g, '\\le ').replace(/>=|\\geq?slant|\\geq(?![a-zA-Z])/g, '\\ge ');
  s = s.replace(/!=|\\neq(?![a-zA-Z])|\\not\s*=/g, '\\ne ');
  s = s.replace(/\\(?:dots|cdots|ldots|dotsc|dotsb)(?![a-zA-Z])|…/g, '\\ldots ');
  s = s.replace(/\*/g, '\\cdot ').replace(/×/g, '\\times ');
  s = s.replace(/\binfinity\b|(?<![a-zA-Z\\])inf\b/gi, '\\infty');
  s = s.replace(/\s+/g, ' ').trim();
  s = s.replace(/\s*\^\s*/g, '^').replace(/\s*_\s*/g, '_');
  // Multiple-choice letters: `\text{(B)}`, `(B)`, `\text{B}` → `B`.
  const mcq = /^(?:\\text\{\s*\(?\s*([A-E])\s*\)?\s*\}|\(\s*([A-E])\s*\))$/.exec(s);
  if (mcq !== null) s = (mcq[1] ?? mcq[2] ?? s).toUpperCase();
  // Whole-string number formats.
  if (/^-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/.test(s) || /^-?[1-9]\d{0,2}(?: \d{3})+(?:\.\d+)?$/.test(s)) s = s.replace(/[, ]/g, '');
  else if (!mathContext && /^-?\d+,\d+$/.test(s)) s = s.replace(',', '.');
  s = s.replace(/(^|[^\d.])\.(\d)/g, '$10.$2');
  const mixed = /^(-?)(\d+) (\d+)\s*\/\s*(\d+)$/.exec(s);
  if (mixed !== null) s = `${mixed[1]}(${mixed[2]}+\\frac{${mixed[3]}}{${mixed[4]}})`;
  const sci = /^(-?\d+(?:\.\d+)?)[eE]([+-]?\d+)$/.exec(s);
  if (sci !== null) s = `${sci[1]}\\times10^{${sci[2]}}`;
  // Elsewhere `2e+1` is 2·e + 1 (compute-engine would read scientific notation, 20): make the product explicit.
  else s = s.replace(/(\d)\s*(\{?e\}?)(?=\s*[+-]?\s*\d)/g, '$1\\cdot $2');
  return { text: s, degrees };
}

/**
 * Normalises one answer string (LaTeX or plain) for comparison; see {@link normalizeDetailed} for
 * the rule list. Never throws; returns `''` for an empty answer. `x = 3` is kept as an equation
 * here: assignment-vs-value is decided by the comparator, which knows whether the gold is a value.
 * @example normalizeMathAnswer('\\dfrac{1}{2}\\text{ cm}.') === '\\frac{1}{2}'
 */
export function normalizeMathAnswer(latex: string): string {
  return normalizeDetailed(latex).text;
}
