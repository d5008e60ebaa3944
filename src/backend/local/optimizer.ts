import type { AdamParams } from '../types.js';
import { withAdamDefaults } from '../adam-defaults.js';
import { jit, np, tree, type JaxArray } from './jax.js';
import type { Params } from './params.js';

type Hyper = { lr: JaxArray; b1: JaxArray; b2: JaxArray; eps: JaxArray; wd: JaxArray; bc1: JaxArray; bc2: JaxArray; scale: JaxArray };
type AdamOut = { p: Params; m: Params; v: Params };

/** Adam moments and step count. */
export interface AdamState {
  m: Params;
  v: Params;
  step: number;
}

const sumSquares = jit((g: Params) => {
  let acc: JaxArray | undefined;
  for (const k of Object.keys(g).sort()) {
    const s = np.square(g[k]!).sum();
    acc = acc === undefined ? s : acc.add(s);
  }
  return acc ?? np.zeros([]);
}) as unknown as (g: Params) => JaxArray;

const addTrees = jit((a: Params, b: Params) => {
  const out: Params = {};
  for (const k of Object.keys(a)) out[k] = a[k]!.add(b[k]!);
  return out;
}) as unknown as (a: Params, b: Params) => Params;

// AdamW with bias correction; every hyperparameter is an array input so new values never recompile.
const adamUpdate = jit((p: Params, g: Params, m: Params, v: Params, h: Hyper) => {
  const out: AdamOut = { p: {}, m: {}, v: {} };
  for (const k of Object.keys(p)) {
    const gk = g[k]!.mul(h.scale.ref);
    const mk = m[k]!.mul(h.b1.ref).add(gk.ref.mul(np.subtract(1, h.b1.ref)));
    const vk = v[k]!.mul(h.b2.ref).add(np.square(gk).mul(np.subtract(1, h.b2.ref)));
    const mhat = mk.ref.div(h.bc1.ref);
    const vhat = vk.ref.div(h.bc2.ref);
    let upd = mhat.div(np.sqrt(vhat).add(h.eps.ref));
    const pk = p[k]!;
    // Decoupled weight decay on matrices only (not LayerNorm gains or biases).
    if (pk.shape.length >= 2) upd = upd.add(pk.ref.mul(h.wd.ref));
    out.p[k] = pk.sub(upd.mul(h.lr.ref));
    out.m[k] = mk;
    out.v[k] = vk;
  }
  tree.dispose(h);
  return out;
}) as unknown as (p: Params, g: Params, m: Params, v: Params, h: Hyper) => AdamOut;

/** Adds `b` into `a` (both consumed), returning the sum. */
export function accumulate(a: Params | undefined, b: Params): Params {
  return a === undefined ? b : addTrees(a, b);
}

/** Global L2 norm of a gradient tree (does not consume it). */
export function globalNorm(g: Params): number {
  return Math.sqrt((sumSquares(tree.ref(g)).dataSync() as Float32Array)[0]!);
}

/**
 * One AdamW step with bias correction and global-norm clipping (`gradClipNorm`, 0 = off).
 * Consumes `params`, `grads` and the state's moments; returns new params and updates `state`.
 * @returns the new params and the pre-clip gradient norm.
 */
export function adamStep(params: Params, grads: Params, state: AdamState, opts: AdamParams): { params: Params; gradNorm: number } {
  const { beta1: b1, beta2: b2, gradClipNorm: clip, eps, weightDecay } = withAdamDefaults(opts);
  const gradNorm = globalNorm(grads);
  const scale = clip > 0 && gradNorm > clip ? clip / (gradNorm + 1e-6) : 1;
  const t = state.step + 1;
  const h: Hyper = {
    lr: np.array(opts.learningRate),
    b1: np.array(b1),
    b2: np.array(b2),
    eps: np.array(eps),
    wd: np.array(weightDecay),
    bc1: np.array(1 - b1 ** t),
    bc2: np.array(1 - b2 ** t),
    scale: np.array(scale),
  };
  const out = adamUpdate(params, grads, state.m, state.v, h);
  state.m = out.m;
  state.v = out.v;
  state.step = t;
  return { params: out.p, gradNorm };
}
