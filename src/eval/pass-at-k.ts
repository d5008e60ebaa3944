import { ConfigError } from '../errors/index.js';

/**
 * The unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", the HumanEval
 * paper): with `n` samples of which `c` are correct, `pass@k = 1 − C(n − c, k) / C(n, k)`, the probability that at
 * least one of k samples drawn without replacement from the n is correct. Computed as
 * `1 − Π_{i = n−c+1}^{n} (1 − k/i)` (no large binomials). 1 when `n − c < k`.
 * @throws ConfigError unless `0 ≤ c ≤ n` and `1 ≤ k ≤ n` are integers.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k) && n >= 1 && c >= 0 && c <= n && k >= 1 && k <= n)) {
    throw new ConfigError('passAtK arguments', [{ path: 'n, c, k', message: `expected integers with 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n}, c=${c}, k=${k}` }]);
  }
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/**
 * `eval/pass_at_1` … `eval/pass_at_{n}`: the mean over problems of {@link passAtK} for each k ≤ n, from each problem's
 * per-candidate correctness (n candidates each; problems with fewer candidates use their own count and only
 * contribute to k up to it). `eval/pass_at_1` equals Average@n; `eval/pass_at_{n}` equals the plain Pass@n.
 */
export function passAtKMetrics(correct_P: readonly (readonly boolean[])[], n: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= n; k++) {
    let sum = 0;
    let count = 0;
    for (const c_N of correct_P) {
      if (c_N.length < k) continue;
      sum += passAtK(c_N.length, c_N.filter(Boolean).length, k);
      count++;
    }
    out[`eval/pass_at_${k}`] = count > 0 ? sum / count : 0;
  }
  return out;
}
