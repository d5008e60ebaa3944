/** A 95% interval of a share (0..1) and its standard error. */
export interface ShareInterval {
  /** The share itself. */
  readonly mean: number;
  /** Standard error of the share. */
  readonly stderr: number;
  /** Lower bound of the 95% interval (≥ 0). */
  readonly low: number;
  /** Upper bound of the 95% interval (≤ 1). */
  readonly high: number;
}

const Z95 = 1.959963984540054;

/**
 * 95% interval of a mean over problems when each problem contributes its own share of correct samples (Average@N):
 * the samples of one problem are not independent, so the standard error is taken over the P per-problem means
 * (`sd(p_i) / √P`, the clustered standard error of E. Miller, "Adding Error Bars to Evals", 2024), and the normal
 * interval is clipped to [0, 1]. When every problem has the same share (all 0%, all 100%: a standard error of 0 that
 * would claim certainty) the interval is Wilson's over the P problems instead (each counted as one trial, the
 * conservative choice). With one problem the error is unknown: `stderr` NaN, interval [0, 1].
 * @param perProblem_P - per problem, the share (0..1) of its N samples judged correct.
 */
export function clusteredMeanInterval(perProblem_P: readonly number[]): ShareInterval {
  const P = perProblem_P.length;
  const mean = P ? perProblem_P.reduce((a, b) => a + b, 0) / P : 0;
  if (P < 2) return { mean, stderr: Number.NaN, low: 0, high: 1 };
  const variance = perProblem_P.reduce((a, p) => a + (p - mean) ** 2, 0) / (P - 1);
  const stderr = Math.sqrt(variance / P);
  if (stderr === 0) {
    const w = wilsonInterval(mean * P, P);
    return { mean, stderr, low: w.low, high: w.high };
  }
  return { mean, stderr, low: Math.max(0, mean - Z95 * stderr), high: Math.min(1, mean + Z95 * stderr) };
}

/**
 * Wilson score 95% interval of a binomial share (Pass@N: `successes` of `n` problems solved). Unlike the normal
 * interval it stays inside [0, 1] and is not zero-width at 0% or 100% (E. B. Wilson, JASA 1927). `stderr` is the
 * binomial `√(p(1−p)/n)`.
 */
export function wilsonInterval(successes: number, n: number): ShareInterval {
  if (n === 0) return { mean: 0, stderr: Number.NaN, low: 0, high: 1 };
  const p = successes / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { mean: p, stderr: Math.sqrt((p * (1 - p)) / n), low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
