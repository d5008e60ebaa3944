import { DecodeKernels } from './decode-kernels.js';
import type { ModelConfig } from './model-config.js';
import { TrainKernels } from './train-step.js';

// One set of jitted kernels per model shape and process: every backend (and every checkpoint reload)
// of the same shape reuses compiled kernels instead of paying ~1–3 s per shape bucket again.
const train = new Map<string, TrainKernels>();
const decode = new Map<string, DecodeKernels>();

/** Shared training kernels for `cfg`. */
export function trainKernelsFor(cfg: ModelConfig): TrainKernels {
  const key = JSON.stringify(cfg);
  let k = train.get(key);
  if (!k) train.set(key, (k = new TrainKernels(cfg)));
  return k;
}

/** Shared sampling kernels for `cfg`. */
export function decodeKernelsFor(cfg: ModelConfig): DecodeKernels {
  const key = JSON.stringify(cfg);
  let k = decode.get(key);
  if (!k) decode.set(key, (k = new DecodeKernels(cfg)));
  return k;
}
