/**
 * In-thread math equivalence: normalise → structural parse → structural/scalar comparison.
 * This is synchronous and cannot be interrupted; the trainer uses the worker-pool version
 * (`mathEquivalent`) which adds a hard timeout.
 */
import { compareNodes, type CompareContext } from './compare.js';
import { normalizeDetailed } from './normalize.js';
import { bracketsBalanced, parseAnswerNode, type AnswerNode } from './structure.js';
import { lacksDefiniteValue, type NumericPolicy } from './scalar.js';
import { sameOptionLetter } from '../option-letter.js';
import { unreachable } from '../../errors/internal-error.js';

/** Options of the equivalence check. */
export interface MathEquivalenceOptions {
  /**
   * Decimals both sides are rounded to when one side is a decimal literal (math-verify's
   * `float_rounding`). @default 6
   */
  readonly floatRounding?: number;
  /**
   * A decimal literal that is the exact value correctly rounded at its own last digit matches
   * when it has at least this many significant digits (`2.6667` ≡ 8/3, `3.14` ≢ π). @default 4
   */
  readonly minSignificantDigits?: number;
  /** Relative tolerance for numeric comparisons of non-literal values. @default 1e-9 */
  readonly relTol?: number;
  /** Random points at which expressions with free variables are compared. @default 6 */
  readonly samplePoints?: number;
  /**
   * Answers longer than this (characters), or nested deeper than 64 brackets, are compared as
   * whitespace-free text only: no normalisation or parsing, so they cannot stall the check.
   * A reward answer comes from a 300-character window, far below this. @default 2000
   */
  readonly maxAnswerChars?: number;
}

/** Status of a check: `ok` (compared; see `equal`) or why it could not be decided. */
export type EquivalenceStatus = 'ok' | 'gold_unparseable' | 'unparseable_prediction' | 'timeout' | 'error';

/** Result of one equivalence check. `equal` is false unless `status` is `ok`. */
export interface EquivalenceResult {
  /** Whether prediction and gold are mathematically equal (false unless `status` is `ok`). */
  readonly equal: boolean;
  /** `ok`, or why the check could not decide. */
  readonly status: EquivalenceStatus;
  /** Human-readable detail for `error` / `timeout`. */
  readonly detail?: string;
}

/** Resolves defaults of {@link MathEquivalenceOptions}. */
export function resolvePolicy(options: MathEquivalenceOptions = {}): NumericPolicy {
  return {
    floatRounding: options.floatRounding ?? 6,
    minSignificantDigits: options.minSignificantDigits ?? 4,
    relTol: options.relTol ?? 1e-9,
    samplePoints: options.samplePoints ?? 6,
  };
}

/**
 * Decides whether the answer `pred` is mathematically equal to the reference `gold`. Both are
 * answer strings (e.g. box contents), not whole responses — use `extractAnswer` first.
 *
 * Numbers are compared exactly when both are rational literals (BigInt), with the decimal-literal
 * policy when one is a decimal, else by compute-engine evaluation with relative tolerance;
 * expressions with variables by randomized numeric evaluation; tuples, sets (order-free),
 * intervals (open/closed), unions, matrices, equations and inequalities structurally. A multiple-choice
 * reference (one capital letter, or a marked letter: `C`, `(C)`, `\text{C}`) is compared by letter: `C) 17`,
 * `(C) 17`, `C. 17`, `\text{C}: 17`, `**C**`, `Option C` are equal to it, `D) 17` is not (`optionLetter`).
 *
 * Never throws: an internal failure (e.g. a stack overflow on 25 000 nested parentheses) comes back
 * as `status: 'error'`. Runs in the calling thread without a timeout: a pathological
 * input (`10^{10^{10^{10}}}`) can block it, so trainers should call `mathEquivalent` instead.
 * @returns `gold_unparseable` when the reference normalises to nothing or its only value does not
 *   parse; `unparseable_prediction` likewise for `pred` (both with `equal: false`).
 */
export function mathEquivalentSync(gold: string, pred: string, options: MathEquivalenceOptions = {}): EquivalenceResult {
  try {
    return check(gold, pred, options);
  } catch (e) {
    // compute-engine or a deeply nested input (stack overflow) failed: report, never throw.
    return { equal: false, status: 'error', detail: e instanceof Error ? e.message : String(e) };
  }
}

/** Deepest bracket nesting in `s` (`(`, `[`, `{`). */
function nestingDepth(s: string): number {
  let d = 0;
  let max = 0;
  for (const ch of s) {
    if (ch === '(' || ch === '[' || ch === '{') max = Math.max(max, ++d);
    else if (ch === ')' || ch === ']' || ch === '}') d = Math.max(0, d - 1);
  }
  return max;
}

function check(gold: string, pred: string, options: MathEquivalenceOptions): EquivalenceResult {
  const maxChars = options.maxAnswerChars ?? 2000;
  if (gold.length > maxChars || pred.length > maxChars || nestingDepth(gold) > 64 || nestingDepth(pred) > 64) {
    // Oversized input: no parsing at all (normalising/parsing it could take seconds or overflow the stack).
    const a = gold.replace(/\s+/g, '');
    const b = pred.replace(/\s+/g, '');
    if (a === '') return { equal: false, status: 'gold_unparseable' };
    return { equal: a === b, status: 'ok', detail: 'oversized input compared as text' };
  }
  // A multiple-choice reference (`C`, `(C)`, `\boxed{C}`): the prediction is right when it names the same letter,
  // alone or with its option text (`C) 17`, `\text{C}: 17`), wrong when it names another or two (option-letter.ts).
  const letter = sameOptionLetter(gold, pred);
  if (letter !== null) return { equal: letter, status: 'ok', detail: 'option letter' };
  const g = normalizeDetailed(gold);
  const p = normalizeDetailed(pred);
  if (g.text === '' || !bracketsBalanced(g.text)) return { equal: false, status: 'gold_unparseable' };
  if (p.text === '' || !bracketsBalanced(p.text)) return { equal: false, status: 'unparseable_prediction' };
  const gNode = parseAnswerNode(g.text, g.degrees);
  // A reference without a definite value (1/0, ln 0, tan π/2) cannot be compared: drop, never reward.
  if (someValue(gNode, lacksDefiniteValue)) return { equal: false, status: 'gold_unparseable', detail: 'the reference has no definite value' };
  const pNode = parseAnswerNode(p.text, p.degrees);
  if (someValue(pNode, lacksDefiniteValue)) return { equal: false, status: 'ok', detail: 'the prediction has no definite value' };
  if (g.text === p.text) return { equal: true, status: 'ok' };
  const ctx: CompareContext = { policy: resolvePolicy(options), goldInvalid: false, predInvalid: false };
  const equal = compareNodes(gNode, pNode, ctx);
  if (equal) return { equal, status: 'ok' };
  if (ctx.goldInvalid && gNode.kind === 'expr') return { equal: false, status: 'gold_unparseable' };
  if (ctx.predInvalid && pNode.kind === 'expr') return { equal: false, status: 'unparseable_prediction' };
  return { equal: false, status: 'ok' };
}

/** True when `test` holds for some value of `n`: an expression, a relation's side, a list item, a matrix cell. */
function someValue(n: AnswerNode, test: (latex: string) => boolean): boolean {
  switch (n.kind) {
    case 'expr':
      return test(n.latex);
    case 'text':
      return false;
    case 'relation':
      return n.parts.some(test);
    case 'matrix':
      return n.rows.some((row) => row.some(test));
    case 'union':
      return n.parts.some((x) => someValue(x, test));
    case 'seq':
    case 'set':
    case 'tuple':
    case 'ratio':
      return n.items.some((x) => someValue(x, test));
    default:
      return unreachable(n, 'answer node');
  }
}
