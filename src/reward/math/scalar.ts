/**
 * Scalar comparison: exact rationals first (BigInt), then compute-engine (parse, exact evaluation,
 * numeric evaluation with a relative tolerance / the decimal-literal policy), then randomized
 * numeric evaluation at several points for expressions with free variables.
 */
import { ComputeEngine } from '@cortex-js/compute-engine';
import { decimalMatches, parseExactRational, rationalEquals, rationalToNumber, type ExactRational } from './exact.js';

/** Numeric policy shared by the comparators. */
export interface NumericPolicy {
  /** Decimals both sides are rounded to when one side is a decimal literal (math-verify `float_rounding`). */
  readonly floatRounding: number;
  /** Significant digits a decimal literal needs to match a value it correctly rounds. */
  readonly minSignificantDigits: number;
  /** Relative tolerance for numeric (non-literal) comparisons. */
  readonly relTol: number;
  /** Random points used for expressions with free variables. */
  readonly samplePoints: number;
}

type Expr = NonNullable<ReturnType<ComputeEngine['parse']>>;

function isLiteral(e: Expr): boolean {
  return (e as unknown as { isNumberLiteral?: boolean }).isNumberLiteral === true;
}

let engine: ComputeEngine | undefined;
let uses = 0;

/** The thread's compute-engine, recreated every 2000 uses so auto-declared symbols do not pile up. */
export function getEngine(): ComputeEngine {
  if (engine === undefined || uses++ > 2000) {
    engine = new ComputeEngine();
    uses = 0;
    parsed.clear();
  }
  return engine;
}

/** Parse cache of the current engine (cleared with it); bounded to 256 entries. */
const parsed = new Map<string, Expr | null>();

/** Applies the percent rule: a trailing `\%` divides by 100 (`28\%` ≡ 0.28, `28\%` ≢ 28). */
export function applyPercent(latex: string): string {
  const m = /^(.*?)\s*\\%$/.exec(latex);
  if (m === null) return latex;
  const body = (m[1] ?? '').trim();
  if (/^[+-]?\d+(?:\.\d+)?$/.test(body)) {
    const neg = body.startsWith('-');
    const digits = body.replace(/^[+-]/, '');
    return `${neg ? '-' : ''}\\frac{${digits.replace('.', '')}}{${100 * 10 ** (digits.split('.')[1]?.length ?? 0)}}`;
  }
  return `\\frac{${body}}{100}`;
}

/** Parses LaTeX with compute-engine; `null` when the result is not a valid expression. */
export function parseLatex(latex: string): Expr | null {
  if (latex.trim() === '') return null;
  const ce = getEngine();
  const hit = parsed.get(latex);
  if (hit !== undefined) return hit;
  let out: Expr | null;
  try {
    const e = ce.parse(latex);
    out = e?.isValid ? e : null;
  } catch {
    out = null;
  }
  if (parsed.size >= 256) parsed.clear();
  parsed.set(latex, out);
  return out;
}

interface Complex {
  re: number;
  im: number;
}

function numericOf(e: Expr): Complex | null {
  try {
    const n = e.N();
    if (!isLiteral(n)) return null;
    const re = Number(n.re);
    const im = Number(n.im ?? 0);
    if (!Number.isFinite(re) || !Number.isFinite(im)) {
      if (n.isInfinity === true) return { re: n.isPositive === true ? Infinity : -Infinity, im: 0 };
      return null;
    }
    return { re, im: Number.isNaN(im) ? 0 : im };
  } catch {
    return null;
  }
}

function close(a: Complex, b: Complex, relTol: number): boolean {
  if (!Number.isFinite(a.re) || !Number.isFinite(b.re)) return a.re === b.re && a.im === b.im;
  const scale = Math.max(Math.abs(a.re), Math.abs(a.im), Math.abs(b.re), Math.abs(b.im));
  return Math.abs(a.re - b.re) + Math.abs(a.im - b.im) <= relTol * scale;
}

/** Deterministic PRNG (mulberry32) so sampling is reproducible. */
function rng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function unknownsOf(e: Expr): string[] {
  try {
    return [...(e.unknowns ?? [])].map(String);
  } catch {
    return [];
  }
}

/**
 * Evaluates `f` at `points` random assignments of `vars` (values ±[0.5, 3.5], half of them
 * positive-only so `\sqrt{1/n}` ≡ `1/\sqrt n` is seen on its real domain).
 */
function sample(vars: readonly string[], points: number, f: (subs: Record<string, number>) => boolean | null): { agree: number; disagree: number } {
  const rand = rng(0x5eed + vars.length);
  let agree = 0;
  let disagree = 0;
  let skipped = 0;
  for (let k = 0; k < points * 2 && agree < points; k++) {
    const subs: Record<string, number> = {};
    for (const v of vars) {
      const mag = 0.5 + 3 * rand();
      subs[v] = k % 2 === 0 ? mag : rand() < 0.5 ? -mag : mag;
    }
    const r = f(subs);
    if (r === true) agree++;
    else if (r === false) {
      disagree++;
      break;
    } else skipped++;
  }
  // Mostly-undefined evaluations (symbolic sum bounds, unknown functions) prove nothing.
  return { agree: agree >= 2 * skipped ? agree : 0, disagree };
}

function substitute(e: Expr, subs: Record<string, number>): Complex | null {
  try {
    return numericOf(e.subs(subs));
  } catch {
    return null;
  }
}

function isReal(c: Complex): boolean {
  return Math.abs(c.im) <= 1e-12 * Math.max(1, Math.abs(c.re));
}

/** Outcome of one scalar comparison: `invalid` says which side compute-engine could not parse. */
export interface ScalarOutcome {
  readonly equal: boolean;
  readonly invalid?: 'gold' | 'pred' | 'both';
}

function literalRule(lit: ExactRational, other: Complex | null, policy: NumericPolicy): boolean {
  if (other === null || !isReal(other)) return false;
  return decimalMatches(lit, other.re, policy.floatRounding, policy.minSignificantDigits);
}

/**
 * Compares two scalar LaTeX answers (already normalised). A trailing `\%` on one side only is read both ways:
 * as a division by 100 and as a unit mark (`40\%` ≡ `0.4` and `40\%` ≡ `40`; `0.4` ≢ `40`).
 * Order: string identity → exact rationals → compute-engine `isSame` → exact evaluation →
 * numeric value (decimal-literal policy when one side is a decimal literal, else relative
 * tolerance `relTol`) → for free variables, agreement at `samplePoints` random points (real
 * values only; at least 3 agreeing points and none disagreeing; otherwise not equal).
 */
export function scalarEqual(goldLatex: string, predLatex: string, policy: NumericPolicy): ScalarOutcome {
  const out = scalarEqualOnce(goldLatex, predLatex, policy);
  if (out.equal || out.invalid !== undefined) return out;
  // A percent sign may be a unit mark: `40\%` ≡ `40` as well as ≡ `0.4` (hendrycks `is_equiv`, issue 13).
  const PCT = /\s*\\%$/;
  if (PCT.test(goldLatex.trim()) !== PCT.test(predLatex.trim())) {
    const bare = scalarEqualOnce(goldLatex.trim().replace(PCT, ''), predLatex.trim().replace(PCT, ''), policy);
    if (bare.equal) return bare;
  }
  return out;
}

function scalarEqualOnce(goldLatex: string, predLatex: string, policy: NumericPolicy): ScalarOutcome {
  const g = applyPercent(goldLatex.trim());
  const p = applyPercent(predLatex.trim());
  if (g === p) return { equal: true };
  const gx = parseExactRational(g);
  const px = parseExactRational(p);
  if (gx !== null && px !== null) {
    if (rationalEquals(gx, px)) return { equal: true };
    if (gx.decimals === null && px.decimals === null) return { equal: false };
    const lit = px.decimals !== null ? px : gx;
    const other = lit === px ? gx : px;
    if (other.decimals !== null && lit.decimals !== null) {
      // Two decimal literals: equal only when they round alike at `floatRounding`.
      return { equal: decimalMatches(lit, rationalToNumber(other), policy.floatRounding, Infinity) };
    }
    return { equal: literalRule(lit, { re: rationalToNumber(other), im: 0 }, policy) };
  }
  const a = parseLatex(g);
  const b = parseLatex(p);
  if (a === null || b === null) {
    const invalid = a === null && b === null ? 'both' : a === null ? 'gold' : 'pred';
    return { equal: g.replace(/\s+/g, '').toLowerCase() === p.replace(/\s+/g, '').toLowerCase(), invalid };
  }
  try {
    if (a.isSame(b)) return { equal: true };
  } catch {
    /* fall through */
  }
  const ua = unknownsOf(a);
  const ub = unknownsOf(b);
  if (ua.length === 0 && ub.length === 0) {
    const lit = px?.decimals != null ? px : gx?.decimals != null ? gx : null;
    if (lit !== null) return { equal: literalRule(lit, numericOf(lit === px ? a : b), policy) };
    try {
      const ea = a.evaluate();
      const eb = b.evaluate();
      if (ea.isSame(eb)) return { equal: true };
      if (ea.isRational === true && eb.isRational === true && isLiteral(ea) && isLiteral(eb)) return { equal: false };
    } catch {
      /* fall through to numeric */
    }
    const na = numericOf(a);
    const nb = numericOf(b);
    if (na !== null && nb !== null) return { equal: close(na, nb, policy.relTol) };
    return { equal: false };
  }
  const vars = [...new Set([...ua, ...ub])];
  const { agree, disagree } = sample(vars, policy.samplePoints, (subs) => {
    const va = substitute(a, subs);
    const vb = substitute(b, subs);
    if (va === null || vb === null || !isReal(va) || !isReal(vb)) return null;
    return close(va, vb, 1e-8);
  });
  if (disagree > 0) return { equal: false };
  if (agree >= Math.min(3, policy.samplePoints)) return { equal: true };
  // No point evaluated to real numbers (unknown functions, sums with symbolic bounds): not shown equal.
  return { equal: false };
}

/**
 * Whether `f_p = c · f_g` for one constant `c` (`sign: 'positive'` requires c > 0), where
 * `f = lhs − rhs` of two relations. Used for equations (`2x+4y-3=0` ≡ `y=-x/2+3/4`) and
 * inequalities (`x \le 1` ≡ `-x \ge -1` after canonical orientation).
 */
export function proportional(gold: string, pred: string, sign: 'any' | 'positive', policy: NumericPolicy): boolean {
  const a = parseLatex(gold);
  const b = parseLatex(pred);
  if (a === null || b === null) return false;
  const vars = [...new Set([...unknownsOf(a), ...unknownsOf(b)])];
  if (vars.length === 0) {
    const na = numericOf(a);
    const nb = numericOf(b);
    if (na === null || nb === null) return false;
    if (na.re === 0 || nb.re === 0) return na.re === nb.re;
    return sign === 'any' || Math.sign(na.re) === Math.sign(nb.re);
  }
  let ratio: number | null = null;
  const { agree, disagree } = sample(vars, policy.samplePoints, (subs) => {
    const va = substitute(a, subs);
    const vb = substitute(b, subs);
    if (va === null || vb === null || !isReal(va) || !isReal(vb)) return null;
    if (Math.abs(va.re) < 1e-12) return Math.abs(vb.re) < 1e-9 ? null : false;
    const r = vb.re / va.re;
    if (ratio === null) {
      if (r === 0 || (sign === 'positive' && r < 0)) return false;
      ratio = r;
      return true;
    }
    return Math.abs(r - ratio) <= 1e-8 * Math.max(1, Math.abs(ratio));
  });
  return disagree === 0 && agree >= Math.min(3, policy.samplePoints);
}

/**
 * True when `latex` parses, has no free variables and evaluates to a number (a constant such as `\sqrt{2}` or
 * `\infty`). An unknown function's value (`f(2)`) has no free variable but is not a constant.
 */
export function isConstant(latex: string): boolean {
  const e = parseLatex(applyPercent(latex));
  return e !== null && unknownsOf(e).length === 0 && numericOf(e) !== null;
}

/**
 * Evaluates a LaTeX expression that should denote a matrix (e.g. a sum of `pmatrix`es) into rows of
 * cell LaTeX; `null` when it does not evaluate to a rectangular list of lists.
 */
export function evaluateMatrix(latex: string): string[][] | null {
  const e = parseLatex(latex);
  if (e === null) return null;
  try {
    let json: unknown = e.evaluate().json;
    if (Array.isArray(json) && json[0] === 'Matrix') json = json[1];
    if (!Array.isArray(json) || json[0] !== 'List') return null;
    const ce = getEngine();
    const rows = json.slice(1).map((row: unknown) => {
      if (!Array.isArray(row) || row[0] !== 'List') return [ce.box(row as never).latex];
      return row.slice(1).map((cell: unknown) => ce.box(cell as never).latex);
    });
    return rows;
  } catch {
    return null;
  }
}

/** Free variables of a LaTeX expression (empty when it does not parse). */
export function freeVariables(latex: string): string[] {
  const e = parseLatex(applyPercent(latex));
  return e === null ? [] : unknownsOf(e);
}

/** Real value of `latex` with `subs` substituted; `null` when not a finite real (or ±∞). */
export function realValue(latex: string, subs: Record<string, number> = {}): number | null {
  const e = parseLatex(applyPercent(latex));
  if (e === null) return null;
  const v = Object.keys(subs).length === 0 ? numericOf(e) : substitute(e, subs);
  if (v === null || !isReal(v)) return null;
  return v.re;
}

/** A bare infinity (`\infty`, `-\infty`, `+\infty`): a value an answer may name (a limit, an interval end). */
const INFINITY_LITERAL = /^[+-]?\s*\\infty$/;

/**
 * True when `latex` is a constant expression with no definite value: it parses, has no free variables, and
 * evaluates to an undefined quantity (`\frac{0}{0}`, `0^0`) or an infinite one (`\frac{1}{0}`, `\ln 0`,
 * `\tan\frac{\pi}{2}`, `\Gamma(0)`) without being a bare infinity. Such a reference cannot be compared (dropping the
 * sample is the only safe outcome), and such a prediction equals nothing.
 */
export function lacksDefiniteValue(latex: string): boolean {
  const s = latex.trim();
  if (INFINITY_LITERAL.test(s)) return false;
  const e = parseLatex(applyPercent(s));
  if (e === null || unknownsOf(e).length > 0) return false;
  try {
    const n = e.N();
    if (!isLiteral(n)) return false;
    return n.isNaN === true || n.isInfinity === true || n.isFinite === false;
  } catch {
    return false;
  }
}
