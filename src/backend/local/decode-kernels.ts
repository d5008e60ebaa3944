import { jit, np, tree, type JaxArray } from './jax.js';
import type { ModelConfig } from './model-config.js';
import { decodeStep, prefillKV, writeRows } from './model.js';
import type { Params } from './params.js';

/** A per-layer KV cache: keys and values `[R, H, C, dh]` each. */
export interface KVCache {
  k: JaxArray[];
  v: JaxArray[];
}

/**
 * Jitted fixed-shape sampling kernels of one model config (shared by all samplers of a backend).
 * Compiles once per prompt bucket (prefill), per row bucket (decode, row writes, resize).
 */
export class DecodeKernels {
  readonly cfg: ModelConfig;
  readonly #prefill;
  readonly #write;
  readonly #decode;
  readonly #gather;

  constructor(cfg: ModelConfig) {
    this.cfg = cfg;
    this.#prefill = jit(
      (p: Params, tokens: JaxArray, last: JaxArray, cacheLen: number) => {
        const out = prefillKV(cfg, p, tokens, last, cacheLen);
        tree.dispose(p);
        return out;
      },
      { staticArgnums: [3] },
    ) as unknown as (p: Params, tokens: JaxArray, last: JaxArray, cacheLen: number) => [JaxArray, JaxArray[], JaxArray[]];
    this.#write = jit((kc: JaxArray[], vc: JaxArray[], ks: JaxArray[], vs: JaxArray[], rm: JaxArray) => writeRows(kc, vc, ks, vs, rm)) as unknown as (
      kc: JaxArray[],
      vc: JaxArray[],
      ks: JaxArray[],
      vs: JaxArray[],
      rm: JaxArray,
    ) => [JaxArray[], JaxArray[]];
    this.#decode = jit((p: Params, kc: JaxArray[], vc: JaxArray[], tok: JaxArray, pos: JaxArray) => {
      const out = decodeStep(cfg, p, kc, vc, tok, pos);
      tree.dispose(p);
      return out;
    }) as unknown as (p: Params, kc: JaxArray[], vc: JaxArray[], tok: JaxArray, pos: JaxArray) => [JaxArray, JaxArray[], JaxArray[]];
    this.#gather = jit(
      (kc: JaxArray[], vc: JaxArray[], idx: JaxArray, len: number) => {
        const relayout = (a: JaxArray): JaxArray => {
          const rows = np.take(a, idx.ref, 0);
          const cur = rows.shape[2]!;
          if (len > cur)
            return np.pad(rows, [
              [0, 0],
              [0, 0],
              [0, len - cur],
              [0, 0],
            ]);
          if (len < cur) return np.take(rows, np.arange(len).astype(np.int32), 2);
          return rows;
        };
        const k = kc.map(relayout);
        const v = vc.map(relayout);
        idx.dispose();
        return [k, v];
      },
      { staticArgnums: [3] },
    ) as unknown as (kc: JaxArray[], vc: JaxArray[], idx: JaxArray, len: number) => [JaxArray[], JaxArray[]];
  }

  /** An all-zero cache with `rows` rows of `len` positions. */
  emptyCache(rows: number, len: number): KVCache {
    const { layers, heads, dModel } = this.cfg;
    const shape = [rows, heads, len, dModel / heads];
    return {
      k: Array.from({ length: layers }, () => np.zeros(shape)),
      v: Array.from({ length: layers }, () => np.zeros(shape)),
    };
  }

  /**
   * Prefills `prompt` (padded to `paddedLen` ≤ the cache length) and writes its K/V into the rows
   * where `rowMask` is 1. Consumes `cache`; does not consume `p`.
   * @returns the last-position logits (length V) and the new cache.
   */
  prefill(p: Params, cache: KVCache, prompt: readonly number[], paddedLen: number, rowMask: Float32Array): { logits: Float32Array; cache: KVCache } {
    const cacheLen = cache.k[0]!.shape[2]!;
    const toks = new Int32Array(paddedLen);
    toks.set(prompt);
    const last = new Float32Array(paddedLen);
    last[prompt.length - 1] = 1;
    const [logits, ks, vs] = this.#prefill(tree.ref(p), np.array(toks, { dtype: np.int32 }).reshape([1, paddedLen]), np.array(last), cacheLen);
    const [k, v] = this.#write(cache.k, cache.v, ks, vs, np.array(rowMask));
    return { logits: Float32Array.from(logits.dataSync() as Float32Array), cache: { k, v } };
  }

  /** One decode step for all rows. Consumes `cache`. @returns logits `[R·V]` and the new cache. */
  step(p: Params, cache: KVCache, tok: Int32Array, pos: Int32Array): { logits: Float32Array; cache: KVCache } {
    const [logits, k, v] = this.#decode(tree.ref(p), cache.k, cache.v, np.array(tok, { dtype: np.int32 }), np.array(pos, { dtype: np.int32 }));
    return { logits: Float32Array.from(logits.dataSync() as Float32Array), cache: { k, v } };
  }

  /**
   * New cache whose row i is old row `rows[i]` (grow or compact), zero-padded or truncated to
   * `len` positions. Consumes `cache`.
   */
  relayout(cache: KVCache, rows: Int32Array, len: number): KVCache {
    const [k, v] = this.#gather(cache.k, cache.v, np.array(rows, { dtype: np.int32 }), len);
    return { k, v };
  }
}

/** Releases a cache's device memory (skipping arrays a failed call already consumed). */
export function disposeCache(cache: KVCache | undefined): void {
  if (!cache) return;
  for (const a of [...cache.k, ...cache.v]) if (a.refCount > 0) a.dispose();
}
