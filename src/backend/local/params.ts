import { np, type JaxArray } from './jax.js';
import type { ModelConfig } from './model-config.js';
import { mulberry32, normalSampler } from './rng.js';
import { CheckpointError } from '../../errors/backend-errors.js';

/**
 * Model weights as a flat record keyed by tensor name (`wte`, `wpe`, `h.{l}.wq`, …, `lnf.g`).
 * The same names are used in safetensors checkpoints.
 */
export type Params = Record<string, JaxArray>;

/** Name → shape of every weight tensor, in a stable order. */
export function paramShapes(c: ModelConfig): [string, number[]][] {
  const d = c.dModel;
  const out: [string, number[]][] = [
    ['wte', [c.vocabSize, d]],
    ['wpe', [c.contextTokens, d]],
  ];
  for (let l = 0; l < c.layers; l++) {
    const h = `h.${l}.`;
    out.push(
      [h + 'ln1.g', [d]],
      [h + 'ln1.b', [d]],
      [h + 'wq', [d, d]],
      [h + 'bq', [d]],
      [h + 'wk', [d, d]],
      [h + 'bk', [d]],
      [h + 'wv', [d, d]],
      [h + 'bv', [d]],
      [h + 'wo', [d, d]],
      [h + 'bo', [d]],
      [h + 'ln2.g', [d]],
      [h + 'ln2.b', [d]],
      [h + 'w1', [d, 4 * d]],
      [h + 'b1', [4 * d]],
      [h + 'w2', [4 * d, d]],
      [h + 'b2', [d]],
    );
  }
  out.push(['lnf.g', [d]], ['lnf.b', [d]]);
  return out;
}

/**
 * Host-side initial weights (deterministic in `seed`): N(0, 0.02) matrices, residual output
 * projections (`wo`, `w2`) scaled by 1/√(2·layers) (GPT-2), LayerNorm gains 1, biases 0.
 */
export function initHostParams(c: ModelConfig, seed: number): Map<string, Float32Array> {
  const normal = normalSampler(mulberry32(seed));
  const out = new Map<string, Float32Array>();
  for (const [name, shape] of paramShapes(c)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const buf = new Float32Array(n);
    if (name.endsWith('.g')) buf.fill(1);
    else if (shape.length === 2) {
      const std = name.endsWith('wo') || name.endsWith('w2') ? 0.02 / Math.sqrt(2 * c.layers) : 0.02;
      for (let i = 0; i < n; i++) buf[i] = normal() * std;
    }
    out.set(name, buf);
  }
  return out;
}

/** Uploads host tensors to the device. */
export function toDevice(c: ModelConfig, host: ReadonlyMap<string, Float32Array>): Params {
  const p: Params = {};
  for (const [name, shape] of paramShapes(c)) {
    const buf = host.get(name);
    if (!buf) throw new CheckpointError(`missing tensor ${name}`);
    p[name] = np.array(buf).reshape(shape);
  }
  return p;
}

/** Downloads device tensors to the host (does not consume `p`). */
export function toHost(p: Params): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const [name, arr] of Object.entries(p)) {
    out.set(name, Float32Array.from(arr.ref.dataSync() as Float32Array));
  }
  return out;
}

/** Zeros shaped like every tensor of `c` (Adam moments, gradient accumulators). */
export function zerosLike(c: ModelConfig): Params {
  const p: Params = {};
  for (const [name, shape] of paramShapes(c)) p[name] = np.zeros(shape);
  return p;
}
