/**
 * Multiple-choice letters: the one rule `mathReward` and `exactMatch` apply when the reference is an option letter.
 *
 * A reference is an option letter when it is one capital letter (`B`), or one letter marked as an option in any case
 * (`(B)`, `B)`, `B.`, `B:`, `\text{B}`, `\textbf{(b)}`), optionally followed by the option's text (`(B) 12`). A prediction
 * then matches when it names the same letter, in any of those forms, alone or followed by its option text
 * (`B) 12`, `(B) 12`, `\text{(B) } 12`, `B: 12`); the option text itself is not checked (the question's options are
 * not known to the reward). A prediction that names two letters (`B or C`, `(B) 12, (C) 15`, `B, C`) matches nothing, so
 * hedging never pays. A bare lower-case letter reference (`a`) is a variable, not an option, and is compared as math.
 *
 * Wrappers around the letter are looked through: LaTeX text and box commands (`\text{C}`, `\boxed{C}`, `\textbf{(C)}`),
 * Markdown emphasis (`**C**`, `*C*`, `__C__`), square brackets (`[C]`), and one leading label (`Option C`, `Choice (C)`,
 * `Answer: C) 17`, `The answer is (C)`). `mathEquivalentSync` / `mathEquivalent` apply the same rule, so every grader
 * agrees: gold `C` against `C) 17`, `(C) 17`, `C. 17`, `\text{C}: 17`, `C: 17` is right, against `D) 17` wrong.
 */

const WRAPPER = /\\(?:text|textbf|textit|textrm|textsf|texttt|textup|mathrm|mathbf|mathit|mathsf|mathtt|mbox|fbox|boxed|underline|emph)\s*\{([^{}]*)\}/g;
const SPACING = /\\[,;:! ]|\\q?quad\b|~|\$/g;
/** Markdown emphasis around a whole token: `**C**`, `__C__`, `*C*`, `_C_`. */
const EMPHASIS = /(\*\*|__)([^*_]+?)\1|(?<![*\w])[*_]([^*_\s][^*_]*?)[*_](?![*\w])/g;
/** One leading label before the letter: `Option`, `Choice`, `Answer:`, `The correct answer is`. */
const LABEL = /^(?:the\s+)?(?:(?:final|correct|right|best)\s+)?(?:answer|option|choice)(?:\s+is)?\s*[:：=]?\s*(?=[([]?[A-Za-z](?:$|[^A-Za-z]))/i;
/** `(B) rest`, `[B] rest`, `B) rest`, `B. rest`, `B: rest`, or `B` alone. */
const MARKED = /^(?:\(([A-Za-z])\)|\[([A-Za-z])\]|([A-Za-z])[).:](?=\s|$|\\|\d|[^A-Za-z])|([A-Za-z])$)(\s*)([\s\S]*)$/;
/** Another option marker in the option text: `(C)`, ` C)`, `or C`, `and (C)`. */
const SECOND_MARKER = /\([A-Za-z]\)|(?:^|[\s,;])[A-Z][).:](?=\s|$)|\b(?:or|and)\s+\(?[A-Z]\)?(?=[\s.,;)]|$)|^[,;/]\s*\(?[A-Z]\)?(?=[\s.,;)]|$)/;

/** An operator right after the letter (`(A)+1`, `(A)^2`, `(A)\cdot 2`): arithmetic on it, not an option's text. */
const ARITHMETIC = /^(?:[-+*/^=<>!_]|\\(?:cdot|times|div|pm|mp)\b)/;
/** A lone letter after it (`(A) e`, `(A)\,\mathrm{i}`): a product with a constant or a variable, not an option's text. */
const LONE_LETTER = /^[A-Za-z]$/;

function unwrap(s: string): string {
  let out = s;
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(WRAPPER, '$1');
  }
  out = out.replace(SPACING, ' ').trim();
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(EMPHASIS, (_, _m, strong?: string, em?: string) => strong ?? em ?? '').trim();
  }
  return out.replace(LABEL, '');
}

/**
 * The option letter `s` names (upper-cased), or `null` when `s` is not an option letter (see the module rule).
 * @param role - `gold`: a bare letter must be upper-case; `prediction`: a bare letter of either case.
 * @example optionLetter('\\text{(B) } 12', 'prediction') === 'B'; optionLetter('B or C', 'prediction') === null
 */
export function optionLetter(s: string, role: 'gold' | 'prediction'): string | null {
  const m = MARKED.exec(unwrap(s));
  if (m === null) return null;
  const bare = m[4];
  if (bare !== undefined && role === 'gold' && bare !== bare.toUpperCase()) return null;
  const letter = (m[1] ?? m[2] ?? m[3] ?? bare)!;
  const rest = m[6] ?? '';
  if (SECOND_MARKER.test(rest) || LONE_LETTER.test(rest.trim()) || (m[5] === '' && ARITHMETIC.test(rest))) return null;
  return letter.toUpperCase();
}

/**
 * Compares a prediction with an option-letter reference.
 * @returns `null` when `gold` is not an option letter (compare by the reward's usual rule), else whether `pred` names it.
 */
export function sameOptionLetter(gold: string, pred: string): boolean | null {
  const g = optionLetter(gold, 'gold');
  if (g === null) return null;
  return optionLetter(pred, 'prediction') === g;
}
