/**
 * `\boxed{…}` / `\fbox{…}` extraction by brace-depth counting.
 *
 * Two entry points with deliberately different policies:
 * - {@link extractLastBoxed}: the reward rule (the ReTool recipe's `extract_last_boxed`, KMnO4-zx/agentic-rl-lab
 *   `05-retool/reward.py`): the last box opener
 *   inside the final `window` characters; unclosed → `null`; never joins several boxes.
 * - {@link findBoxes} / {@link extractBoxedAnswer}: the general (math-verify style) extraction used by
 *   `extractAnswer`, which joins adjacent boxes into a list (`\boxed{2}, \boxed{3}` → `2,3`).
 */

/** One `\boxed{…}` occurrence: `content` is between the braces; offsets are UTF-16 indices into the text. */
export interface BoxMatch {
  /** Text between the outer braces (may be empty). */
  readonly content: string;
  /** Index of the backslash that starts `\boxed` / `\fbox`. */
  readonly start: number;
  /** Index just after the closing brace (or `text.length` when unclosed). */
  readonly end: number;
  /** False when the braces never balanced before the end of the text. */
  readonly closed: boolean;
}

const OPENER = /\\(?:boxed|fbox)\s*\{/g;

/**
 * For every `{` of `text`, the index of its matching `}` (−1 when the text ends first), in one pass with a stack:
 * linear, where scanning from each box opener separately is quadratic on thousands of unclosed `\boxed{`.
 * `\{` and `\}` are literal braces inside math; they do not change the depth. Indices that are not `{` hold −1.
 */
function matchBraces(text: string): Int32Array {
  const close = new Int32Array(text.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === '{' || next === '}') i++;
    } else if (ch === '{') open.push(i);
    else if (ch === '}') {
      const o = open.pop();
      if (o !== undefined) close[o] = i;
    }
  }
  return close;
}

/** Every box opener in `text`, in order, with its content (outer boxes contain inner ones). */
export function findBoxes(text: string): BoxMatch[] {
  const out: BoxMatch[] = [];
  let closeOf: Int32Array | undefined;
  OPENER.lastIndex = 0;
  for (let m = OPENER.exec(text); m !== null; m = OPENER.exec(text)) {
    const brace = m.index + m[0].length - 1;
    closeOf ??= matchBraces(text);
    const close = closeOf[brace] ?? -1;
    out.push(
      close < 0
        ? { content: text.slice(brace + 1), start: m.index, end: text.length, closed: false }
        : { content: text.slice(brace + 1, close), start: m.index, end: close + 1, closed: true },
    );
  }
  return out;
}

/** Options of {@link extractLastBoxed}. */
export interface ExtractBoxedOptions {
  /** Only the final `window` characters of the text are searched (seed `ANSWER_WINDOW_CHARS`). @default 300 */
  readonly window?: number;
  /**
   * Join the final run of adjacent boxes (only separators such as `,`, `and`, `or` between them, as
   * {@link extractBoxedAnswer} decides) into one list: `\boxed{3} and \boxed{5}` → `3, 5`. A self-correction
   * (`\boxed{3}, but rechecking gives \boxed{4}`) is not joined. Joining also stops a hedge
   * (`\boxed{3} or \boxed{5}`) from scoring as its last box. @default false
   */
  readonly joinAdjacent?: boolean;
}

/**
 * The reward's answer extraction: the content of the LAST `\boxed{` (or `\fbox{`) opener found in
 * `text.slice(-window)`, matched by brace depth. Semantics follow the recipe's `extract_last_boxed`
 * (`rfind("\\boxed{")`): for `\boxed{\boxed{2}}` the last opener is the inner one, giving `2`;
 * an unclosed last box gives `null` (no fallback to an earlier box). A brace-less `\boxed 5` is
 * NOT an answer (the seed and verl require `\boxed{`; the case file expects no credit).
 * @returns the box content, or `null` when no closed box opens inside the window.
 */
export function extractLastBoxed(text: string, options: ExtractBoxedOptions = {}): string | null {
  const window = options.window ?? 300;
  const tail = window > 0 ? text.slice(-window) : text;
  const boxes = findBoxes(tail);
  const last = boxes[boxes.length - 1];
  if (last === undefined || !last.closed) return null;
  // A blank last box is no answer even after other boxes (`\boxed{5}, put it in \boxed{}`): never joined away.
  if (options.joinAdjacent === true && !isBlankAnswer(last.content)) {
    const outer = outermost(boxes);
    const run = adjacentRun(tail, outer);
    if (run.length >= 2 && run.every((b) => b.closed)) return joinContents(run);
  }
  return last.content;
}

/** Boxes that do not start inside an earlier box. */
function outermost(all: readonly BoxMatch[]): BoxMatch[] {
  const outer: BoxMatch[] = [];
  for (const b of all) {
    const prev = outer[outer.length - 1];
    if (prev !== undefined && b.start < prev.end) continue;
    outer.push(b);
  }
  return outer;
}

/** The last outer box and the boxes before it that are joined to it by separators only. */
function adjacentRun(text: string, outer: readonly BoxMatch[]): BoxMatch[] {
  const last = outer[outer.length - 1];
  if (last === undefined) return [];
  const run: BoxMatch[] = [last];
  for (let i = outer.length - 2; i >= 0; i--) {
    const cur = outer[i];
    const next = run[0];
    if (cur === undefined || next === undefined) break;
    if (!joinable(text.slice(cur.end, next.start))) break;
    run.unshift(cur);
  }
  return run;
}

/** Contents of `run` joined with `, `, identical consecutive contents kept once, blank ones left out. */
function joinContents(run: readonly BoxMatch[]): string {
  const parts: string[] = [];
  for (const b of run) {
    const c = b.content.trim();
    if (isBlankAnswer(c)) continue;
    if (parts[parts.length - 1] !== c) parts.push(c);
  }
  return parts.join(', ');
}

const SEPARATOR_ONLY = /^(?:[\s,;.:]|\$|\\[()[\]]|\\q?quad|\\[,;: !]|\\text\{\s*(?:and|or|,)\s*\}|\band\b|\bor\b|[A-Za-z](?:_\{?\w+\}?)?\s*=)*$/;

/**
 * Whether two boxes separated by `between` belong to one answer list. Joined when the gap is short
 * (< 10 chars, math-verify's rule) or consists only of separators (`,` `;` `and` `or`), math
 * delimiters, spacing commands and assignment lead-ins such as `y_2 =`. Prose in the gap
 * (`but rechecking gives`) keeps the boxes apart, so a self-correction is not read as a set.
 */
function joinable(between: string): boolean {
  if (between.trim().length < 10 && !/[A-Za-z]{2,}/.test(between)) return true;
  return SEPARATOR_ONLY.test(between);
}

/**
 * General boxed extraction (used by `extractAnswer`): takes the outermost boxes, joins the final
 * run of adjacent ones with `,` (identical consecutive contents are kept once), and keeps a
 * percent suffix written just after the box (`$\boxed{28}$ pct` → `28\%`). An unclosed final box
 * takes the rest of the text, as math-verify does.
 * @returns the joined content and the index where the last box ends, or `null` when there is no box.
 */
export function extractBoxedAnswer(text: string): { readonly answer: string; readonly end: number } | null {
  // Keep outermost boxes only: drop any box that starts inside an earlier one.
  const outer = outermost(findBoxes(text));
  const last = outer[outer.length - 1];
  if (last === undefined) return null;
  let answer = joinContents(adjacentRun(text, outer));
  const after = text.slice(last.end, last.end + 24);
  if (/^\s*\$?\s*(?:\\%|%|percent|percentage|pct)\b/i.test(after) || /^\s*\$?\s*(?:\\%|%)/.test(after)) answer += '\\%';
  return { answer, end: last.end };
}

/** Spacing commands, empty groups, math delimiters and empty text wrappers: what a blank box may hold. */
const BLANK_PART =
  /\s+|\$+|\\[,;:! ]|\\q?quad\b|\\(?:h|v)space\*?\{[^{}]*\}|\\(?:text|mathrm|textbf|mathbf|textit|mbox|phantom|hphantom|vphantom)\s*\{\s*\}|\{\s*\}|~|\\(?:displaystyle|left\.|right\.)/g;

/**
 * True when a box's content holds no answer: empty, white space, spacing commands (`\,`, `\quad`, `~`), empty groups
 * (`{}`, `\text{}`), or only those. `\boxed{}` echoed from the prompt ("put your final answer within \boxed{}") is blank.
 * @example isBlankAnswer('\\;\\text{ }') === true; isBlankAnswer('0') === false
 */
export function isBlankAnswer(content: string): boolean {
  let s = content;
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(BLANK_PART, '');
  }
  return s === '';
}
