/**
 * Exact rational literals with BigInt: integers, decimals, `\frac{a}{b}`, `a/b`, with a sign.
 * Used before compute-engine so `12345678901234567890 ≠ …891` and `1/2^{99} ≠ 1/2^{98}` are decided
 * exactly, never by a tolerance.
 */

/** An exact rational `num/den` (den > 0) parsed from a literal; `decimals` is set for decimal literals. */
export interface ExactRational {
  readonly num: bigint;
  readonly den: bigint;
  /** Digits after the point when the literal was a decimal (`2.50` → 2), else `null`. */
  readonly decimals: number | null;
  /** Significant digits of a decimal literal (`0.0330` → 3), else `null`. */
  readonly significant: number | null;
}

function decimal(sign: bigint, intPart: string, frac: string): ExactRational {
  const digits = `${intPart}${frac}`.replace(/^0+/, '');
  return {
    num: sign * BigInt(`${intPart}${frac}` || '0'),
    den: 10n ** BigInt(frac.length),
    decimals: frac.length,
    significant: digits.length,
  };
}

/**
 * Parses `latex` when it is a plain rational literal; `null` otherwise (no evaluation is attempted).
 * @example parseExactRational('-\\frac{3}{4}') // { num: -3n, den: 4n, decimals: null, ... }
 */
export function parseExactRational(latex: string): ExactRational | null {
  const s = latex.replace(/\s+/g, '');
  let m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (m !== null) {
    const sign = m[1] === '-' ? -1n : 1n;
    if (m[3] === undefined) return { num: sign * BigInt(m[2] ?? '0'), den: 1n, decimals: null, significant: null };
    return decimal(sign, m[2] ?? '0', m[3]);
  }
  m = /^([+-]?)(?:\\frac\{([+-]?\d+)\}\{([+-]?\d+)\}|(\d+)\/(\d+)|\(([+-]?\d+)\)\/\((\d+)\))$/.exec(s);
  if (m !== null) {
    const num = BigInt(m[2] ?? m[4] ?? m[6] ?? '0');
    let den = BigInt(m[3] ?? m[5] ?? m[7] ?? '1');
    if (den === 0n) return null;
    let n = m[1] === '-' ? -num : num;
    if (den < 0n) {
      den = -den;
      n = -n;
    }
    return { num: n, den, decimals: null, significant: null };
  }
  return null;
}

/** Exact equality of two rationals (cross-multiplication, no reduction needed). */
export function rationalEquals(a: ExactRational, b: ExactRational): boolean {
  return a.num * b.den === b.num * a.den;
}

/** Nearest double of an exact rational (for the rounding rule only). */
export function rationalToNumber(r: ExactRational): number {
  return Number(r.num) / Number(r.den);
}

/** Rounds `x` to `digits` decimals, half away from zero. */
export function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  return (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
}

/**
 * The decimal-literal policy. A decimal `literal` matches the value `v` when either
 * (a) both round to the same number at `floatRounding` decimals (math-verify, default 6), or
 * (b) the literal is `v` correctly rounded at its own last digit and carries at least
 *     `minSignificant` significant digits (`2.6667` ≡ 8/3; `3.14` ≢ π; `0.333` ≢ 1/3).
 */
export function decimalMatches(literal: ExactRational, v: number, floatRounding: number, minSignificant: number): boolean {
  const d = rationalToNumber(literal);
  if (!Number.isFinite(v) || !Number.isFinite(d)) return false;
  const scale = Math.max(1, Math.abs(d), Math.abs(v));
  const eps = 1e-12 * scale;
  if (Math.abs(roundTo(d, floatRounding) - roundTo(v, floatRounding)) <= eps) return true;
  const k = literal.decimals ?? 0;
  if ((literal.significant ?? 0) < minSignificant || k === 0) return false;
  return Math.abs(roundTo(v, k) - d) <= eps + 10 ** -(k + 3);
}
