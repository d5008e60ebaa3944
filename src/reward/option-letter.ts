/**
 * Multiple-choice letters: the one rule `mathReward` and `exactMatch` apply when the reference is an option letter.
 *
 * A reference is an option letter when it is one capital letter (`B`), or one letter marked as an option in any case
 * (`(B)`, `B)`, `B.`, `B:`, `\text{B}`, `\textbf{(b)}`), optionally followed by the option's text (`(B) 12`). A prediction
 * then matches when it names the same letter, in any of those forms, alone or followed by its option text
 * (`B) 12`, `(B) 12`, `\text{(B) } 12`, `B: 12`); the option text itself is not checked (the question's options are
 * not known to the reward). A prediction that names two letters (`B or C`, `(B) 12, (C) 15`, `B, C`) matches nothing, so
 * hedging never pays. A bare lower-case letter reference (`a`) is a variable, not an option, and is compared as math.
 */

const WRAPPER = /\\(?:text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|fbox)\s*\{([^{}]*)\}/g;
const SPACING = /\\[,;:! ]|\\q?quad\b|~|\$/g;
/** `(B) rest`, `B) rest`, `B. rest`, `B: rest`, or `B` alone. */
const MARKED = /^(?:\(([A-Za-z])\)|([A-Za-z])[).:](?=\s|$|\\|\d|[^A-Za-z])|([A-Za-z])$)\s*([\s\S]*)$/;
/** Another option marker in the option text: `(C)`, ` C)`, `or C`, `and (C)`. */
const SECOND_MARKER = /\([A-Za-z]\)|(?:^|[\s,;])[A-Z][).:](?=\s|$)|\b(?:or|and)\s+\(?[A-Z]\)?(?=[\s.,;)]|$)|^[,;/]\s*\(?[A-Z]\)?(?=[\s.,;)]|$)/;

function unwrap(s: string): string {
  let out = s;
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(WRAPPER, '$1');
  }
  return out.replace(SPACING, ' ').trim();
}

/**
 * The option letter `s` names (upper-cased), or `null` when `s` is not an option letter (see the module rule).
 * @param role - `gold`: a bare letter must be upper-case; `prediction`: a bare letter of either case.
 * @example optionLetter('\\text{(B) } 12', 'prediction') === 'B'; optionLetter('B or C', 'prediction') === null
 */
export function optionLetter(s: string, role: 'gold' | 'prediction'): string | null {
  const m = MARKED.exec(unwrap(s));
  if (m === null) return null;
  const bare = m[3];
  if (bare !== undefined && role === 'gold' && bare !== bare.toUpperCase()) return null;
  const letter = (m[1] ?? m[2] ?? bare)!;
  const rest = m[4] ?? '';
  if (SECOND_MARKER.test(rest)) return null;
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
