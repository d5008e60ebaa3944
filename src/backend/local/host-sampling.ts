/** Per-request sampling settings after defaults are applied. */
export interface ResolvedSampling {
  readonly temperature: number;
  readonly topP: number;
  readonly topK: number;
}

/**
 * Draws one token from `logits` (length V) on the host.
 * - temperature 0: argmax; its logprob is `log softmax(logits)` at T = 1.
 * - otherwise: sample from `softmax(logits / T)` restricted to the top-k tokens and the top-p
 *   nucleus; the returned logprob is `log softmax(logits / T)` of the drawn token over the FULL
 *   vocabulary (before top-k/top-p truncation), which is what the learner computes when `forwardBackward` is given
 *   the same temperature (`samplingSupport.truncation = 'full-vocabulary'`).
 * @param u - a uniform draw in [0, 1) from the request's seeded PRNG.
 */
export function drawToken(logits: Float32Array, s: ResolvedSampling, u: number): { token: number; logprob: number } {
  const V = logits.length;
  const T = s.temperature;
  if (T === 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (logits[i]! > logits[best]!) best = i;
    return { token: best, logprob: logSoftmaxAt(logits, 1, best) };
  }
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[i]! / T);
  const p = new Float64Array(V);
  let z = 0;
  for (let i = 0; i < V; i++) {
    const e = Math.exp(logits[i]! / T - max);
    p[i] = e;
    z += e;
  }
  const logZ = Math.log(z) + max;
  let candidates: number[] | undefined;
  if ((s.topK > 0 && s.topK < V) || s.topP < 1) {
    const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => p[b]! - p[a]! || a - b);
    let keep = s.topK > 0 ? Math.min(s.topK, V) : V;
    if (s.topP < 1) {
      let mass = 0;
      for (let j = 0; j < keep; j++) {
        mass += p[order[j]!]! / z;
        if (mass >= s.topP) {
          keep = j + 1;
          break;
        }
      }
    }
    candidates = order.slice(0, keep);
  }
  let token: number;
  if (candidates) {
    let mass = 0;
    for (const i of candidates) mass += p[i]!;
    let r = u * mass;
    token = candidates[candidates.length - 1]!;
    for (const i of candidates) {
      r -= p[i]!;
      if (r < 0) {
        token = i;
        break;
      }
    }
  } else {
    let r = u * z;
    token = V - 1;
    for (let i = 0; i < V; i++) {
      r -= p[i]!;
      if (r < 0) {
        token = i;
        break;
      }
    }
    // Guard against drawing a zero-probability tail token from rounding.
    while (p[token] === 0 && token > 0) token--;
  }
  return { token, logprob: logits[token]! / T - logZ };
}

/** `log softmax(logits / T)[i]`. */
export function logSoftmaxAt(logits: Float32Array, T: number, i: number): number {
  let max = -Infinity;
  for (let j = 0; j < logits.length; j++) max = Math.max(max, logits[j]! / T);
  let z = 0;
  for (let j = 0; j < logits.length; j++) z += Math.exp(logits[j]! / T - max);
  return logits[i]! / T - max - Math.log(z);
}

/**
 * The `k` most likely tokens of `log softmax(logits / T)` over the full vocabulary (T = 0 reads as 1, as the greedy
 * token's logprob does), most likely first, ties by lower id: the distribution {@link drawToken} reports logprobs in.
 */
export function topLogprobs(logits: Float32Array, temperature: number, k: number): { token: number; logprob: number }[] {
  const T = temperature === 0 ? 1 : temperature;
  const V = logits.length;
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[i]! / T);
  let z = 0;
  for (let i = 0; i < V; i++) z += Math.exp(logits[i]! / T - max);
  const logZ = Math.log(z) + max;
  const top: number[] = [];
  for (let i = 0; i < V; i++) {
    const v = logits[i]!;
    if (top.length === k && v <= logits[top[k - 1]!]!) continue;
    let j = top.length < k ? top.length : k - 1;
    if (top.length < k) top.push(i);
    while (j > 0 && logits[top[j - 1]!]! < v) {
      top[j] = top[j - 1]!;
      j--;
    }
    top[j] = i;
  }
  return top.map((token) => ({ token, logprob: logits[token]! / T - logZ }));
}
