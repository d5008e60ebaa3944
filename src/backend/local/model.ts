import { np, nn, type JaxArray } from './jax.js';
import type { ModelConfig } from './model-config.js';
import type { Params } from './params.js';

// Pure tensor code of the pre-LN GPT. Ownership: these helpers never consume `p` (they take
// `.ref`s); they do consume their other array arguments. Callers dispose `p` once.

const LN_EPS = 1e-5;
const NEG = -1e9;

function layerNorm(x: JaxArray, g: JaxArray, b: JaxArray): JaxArray {
  const mu = np.mean(x.ref, -1, { keepdims: true });
  const xc = x.sub(mu);
  const v = np.mean(np.square(xc.ref), -1, { keepdims: true });
  return xc
    .div(np.sqrt(v.add(LN_EPS)))
    .mul(g)
    .add(b);
}

/** GELU, sigmoid approximation `x·σ(1.702x)`. */
function gelu(x: JaxArray): JaxArray {
  return x.ref.mul(nn.sigmoid(x.mul(1.702)));
}

function linear(x: JaxArray, w: JaxArray, b: JaxArray): JaxArray {
  return np.matmul(x, w).add(b);
}

function mlp(c: ModelConfig, p: Params, l: number, x: JaxArray): JaxArray {
  void c;
  const h = `h.${l}.`;
  const n = layerNorm(x, p[h + 'ln2.g']!.ref, p[h + 'ln2.b']!.ref);
  return linear(gelu(linear(n, p[h + 'w1']!.ref, p[h + 'b1']!.ref)), p[h + 'w2']!.ref, p[h + 'b2']!.ref);
}

function logitsFrom(p: Params, x: JaxArray): JaxArray {
  const n = layerNorm(x, p['lnf.g']!.ref, p['lnf.b']!.ref);
  return np.matmul(n, np.transpose(p['wte']!.ref));
}

/**
 * Full causal forward over a padded batch. Right padding is harmless: causal attention means
 * no real position attends to a later (padding) one.
 * @param tokens - int32 `[B, T]`, T ≤ contextTokens.
 * @param keepKV - also return each layer's keys/values `[B, H, T, dh]` (prompt prefill).
 * @returns final hidden states `[B, T, d]` and, when asked, the per-layer K/V.
 */
export function forwardHidden(c: ModelConfig, p: Params, tokens: JaxArray, keepKV: boolean): { x: JaxArray; ks: JaxArray[]; vs: JaxArray[] } {
  const [B, T] = tokens.shape as [number, number];
  const H = c.heads;
  const dh = c.dModel / H;
  const pos = np.arange(T).astype(np.int32);
  let x = np.take(p['wte']!.ref, tokens, 0).add(np.take(p['wpe']!.ref, pos, 0));
  const ks: JaxArray[] = [];
  const vs: JaxArray[] = [];
  for (let l = 0; l < c.layers; l++) {
    const h = `h.${l}.`;
    const n = layerNorm(x.ref, p[h + 'ln1.g']!.ref, p[h + 'ln1.b']!.ref);
    const q = linear(n.ref, p[h + 'wq']!.ref, p[h + 'bq']!.ref).reshape([B, T, H, dh]);
    const k = linear(n.ref, p[h + 'wk']!.ref, p[h + 'bk']!.ref).reshape([B, T, H, dh]);
    const v = linear(n, p[h + 'wv']!.ref, p[h + 'bv']!.ref).reshape([B, T, H, dh]);
    if (keepKV) {
      ks.push(np.transpose(k.ref, [0, 2, 1, 3]));
      vs.push(np.transpose(v.ref, [0, 2, 1, 3]));
    }
    const a = nn.dotProductAttention(q, k, v, { isCausal: true }).reshape([B, T, c.dModel]);
    x = x.add(linear(a, p[h + 'wo']!.ref, p[h + 'bo']!.ref));
    x = x.ref.add(mlp(c, p, l, x));
  }
  return { x, ks, vs };
}

/** Logits `[B, T, V]` of a padded batch `tokens` `[B, T]`. */
export function forwardLogits(c: ModelConfig, p: Params, tokens: JaxArray): JaxArray {
  const { x } = forwardHidden(c, p, tokens, false);
  return logitsFrom(p, x);
}

/**
 * Log-probability of each target under the model: `log softmax(logits · invTemperature)[target]`, shape `[B, T]`.
 * @param invTemperature - scalar `1/T` (consumed); omitted means T = 1. The sampler reports logprobs of the same
 *   tempered softmax over the full vocabulary (`host-sampling.ts`), so both sides of the PPO ratio match.
 */
export function targetLogprobs(c: ModelConfig, p: Params, tokens: JaxArray, targets: JaxArray, invTemperature?: JaxArray): JaxArray {
  const raw = forwardLogits(c, p, tokens);
  const logits = invTemperature ? raw.mul(invTemperature) : raw;
  const logp = nn.logSoftmax(logits, -1);
  return logp.mul(nn.oneHot(targets, c.vocabSize)).sum(-1);
}

/**
 * Entropy of each row of a log-probability tensor over its last (vocabulary) axis: `H = −Σ_v p_v·log p_v` in nats,
 * shape `[..., V]` → `[...]`. Consumes `logp`.
 */
export function entropyOfLogprobs(logp: JaxArray): JaxArray {
  return np.exp(logp.ref).mul(logp).sum(-1).mul(-1);
}

/**
 * {@link targetLogprobs} and the full-vocabulary entropy of the same tempered softmax at each position
 * (`−Σ_v p_v log p_v`, nats), both `[B, T]`. Consumes `tokens`, `targets` and `invTemperature`.
 */
export function targetLogprobsAndEntropy(c: ModelConfig, p: Params, tokens: JaxArray, targets: JaxArray, invTemperature: JaxArray): [JaxArray, JaxArray] {
  const logp = nn.logSoftmax(forwardLogits(c, p, tokens).mul(invTemperature), -1);
  const lp = logp.ref.mul(nn.oneHot(targets, c.vocabSize)).sum(-1);
  return [lp, entropyOfLogprobs(logp)];
}

/**
 * Prompt prefill: keys/values of a right-padded prompt, zero-padded to the cache length, and the
 * logits at the prompt's last real position.
 * @param tokens - int32 `[1, Tp]` (right-padded prompt), Tp ≤ `cacheLen`.
 * @param lastOneHot - float `[Tp]`, 1 at the last real prompt position.
 * @param cacheLen - length of the KV cache the result is written into (≤ contextTokens).
 * @returns `[logits [V], ks, vs]`, per-layer `[1, H, cacheLen, dh]`.
 */
export function prefillKV(c: ModelConfig, p: Params, tokens: JaxArray, lastOneHot: JaxArray, cacheLen: number): [JaxArray, JaxArray[], JaxArray[]] {
  const Tp = tokens.shape[1]!;
  const C = cacheLen;
  const { x, ks, vs } = forwardHidden(c, p, tokens, true);
  const last = x.mul(lastOneHot.reshape([1, Tp, 1])).sum(1); // [1, d]
  const logits = logitsFrom(p, last).reshape([c.vocabSize]);
  const pad = (a: JaxArray): JaxArray =>
    Tp < C
      ? np.pad(a, [
          [0, 0],
          [0, 0],
          [0, C - Tp],
          [0, 0],
        ])
      : a;
  return [logits, ks.map(pad), vs.map(pad)];
}

/**
 * Copies one prompt's K/V (`[1, H, C, dh]` per layer) into the cache rows where `rowMask` is 1.
 * @param kc,vc - per-layer caches `[R, H, C, dh]`; all arguments are consumed.
 */
export function writeRows(kc: JaxArray[], vc: JaxArray[], ks: JaxArray[], vs: JaxArray[], rowMask: JaxArray): [JaxArray[], JaxArray[]] {
  const rm = rowMask.reshape([-1, 1, 1, 1]);
  const write = (cache: JaxArray, fresh: JaxArray): JaxArray => cache.mul(np.subtract(1, rm.ref)).add(fresh.mul(rm.ref));
  const kc2 = kc.map((cache, l) => write(cache, ks[l]!));
  const vc2 = vc.map((cache, l) => write(cache, vs[l]!));
  rm.dispose();
  return [kc2, vc2];
}

/**
 * One fixed-shape decode step for R rows, each at its own position (continuous batching). Attention
 * covers the cache length C (≤ contextTokens), with slots after each row's `pos` masked out.
 * @param kc,vc - per-layer caches `[R, H, C, dh]` (consumed).
 * @param tok - int32 `[R]`: the token at position `pos` of each row.
 * @param pos - int32 `[R]`: its position (< C).
 * @returns `[logits [R, V], kc', vc']` (logits predict position `pos + 1`).
 */
export function decodeStep(c: ModelConfig, p: Params, kc: JaxArray[], vc: JaxArray[], tok: JaxArray, pos: JaxArray): [JaxArray, JaxArray[], JaxArray[]] {
  const R = tok.shape[0]!;
  const H = c.heads;
  const dh = c.dModel / H;
  const C = kc[0]!.shape[2]!;
  const scale = 1 / Math.sqrt(dh);
  let x = np.take(p['wte']!.ref, tok, 0).add(np.take(p['wpe']!.ref, pos.ref, 0)); // [R, d]
  const oh = nn.oneHot(pos.ref, C).reshape([R, 1, C, 1]);
  const valid = np.lessEqual(np.arange(C).astype(np.int32).reshape([1, C]), pos.reshape([R, 1])).reshape([R, 1, 1, C]);
  const kc2: JaxArray[] = [];
  const vc2: JaxArray[] = [];
  for (let l = 0; l < c.layers; l++) {
    const h = `h.${l}.`;
    const n = layerNorm(x.ref, p[h + 'ln1.g']!.ref, p[h + 'ln1.b']!.ref);
    const q = linear(n.ref, p[h + 'wq']!.ref, p[h + 'bq']!.ref).reshape([R, H, 1, dh]);
    const k = linear(n.ref, p[h + 'wk']!.ref, p[h + 'bk']!.ref).reshape([R, H, 1, dh]);
    const v = linear(n, p[h + 'wv']!.ref, p[h + 'bv']!.ref).reshape([R, H, 1, dh]);
    const inv = np.subtract(1, oh.ref);
    const K = kc[l]!.mul(inv.ref).add(k.mul(oh.ref));
    const V = vc[l]!.mul(inv).add(v.mul(oh.ref));
    const s = np.matmul(q, np.swapaxes(K.ref, 2, 3)).mul(scale); // [R, H, 1, C]
    const att = nn.softmax(np.where(valid.ref, s, NEG), -1);
    const a = np.matmul(att, V.ref).reshape([R, c.dModel]);
    kc2.push(K);
    vc2.push(V);
    x = x.add(linear(a, p[h + 'wo']!.ref, p[h + 'bo']!.ref));
    x = x.ref.add(mlp(c, p, l, x));
  }
  oh.dispose();
  valid.dispose();
  return [logitsFrom(p, x), kc2, vc2];
}
