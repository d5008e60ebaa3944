import { mkdir, readFile, readFileSync, writeFile } from '../../platform/fs.js';
import { join } from '../../platform/path.js';
import { CheckpointError } from '../../errors/index.js';
import { parseModelConfig, type ModelConfig } from './model-config.js';
import { paramShapes } from './params.js';
import { decodeSafetensors, encodeSafetensors, type HostTensor } from './safetensors.js';

/** Format tag written to `config.json`. */
export const CHECKPOINT_FORMAT = 'agentrl-local-v1';

/** Contents of a checkpoint directory's `config.json`. */
export interface CheckpointConfig {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly model: ModelConfig;
  /** Optimizer steps taken when saved. */
  readonly step: number;
}

/** Host-side weights and optional Adam moments, keyed by tensor name. */
export interface HostState {
  readonly params: Map<string, Float32Array>;
  readonly m?: Map<string, Float32Array>;
  readonly v?: Map<string, Float32Array>;
  readonly step: number;
}

/**
 * Writes `config.json`, `model.safetensors` and (with moments) `optimizer.safetensors` (`m.<name>`,
 * `v.<name>`) into `dir`, creating it if needed.
 * @throws CheckpointError when the directory cannot be written.
 */
export async function writeCheckpoint(dir: string, cfg: ModelConfig, s: HostState): Promise<void> {
  const shapes = new Map(paramShapes(cfg));
  const tensors = (prefix: string, m: ReadonlyMap<string, Float32Array>) => {
    const out = new Map<string, HostTensor>();
    for (const [name, data] of m) out.set(prefix + name, { shape: shapes.get(name)!, data });
    return out;
  };
  const config: CheckpointConfig = { format: CHECKPOINT_FORMAT, model: cfg, step: s.step };
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'model.safetensors'), encodeSafetensors(tensors('', s.params), { format: 'pt' }));
    if (s.m && s.v) {
      const opt = new Map([...tensors('m.', s.m), ...tensors('v.', s.v)]);
      await writeFile(join(dir, 'optimizer.safetensors'), encodeSafetensors(opt, { step: String(s.step) }));
    }
    await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  } catch (e) {
    throw new CheckpointError(`cannot write checkpoint to ${dir}: ${String(e)}`, { cause: e });
  }
}

/**
 * Reads `config.json` of a checkpoint synchronously (the model shape is needed before the engine starts).
 * @throws CheckpointError when missing or malformed.
 */
export function readCheckpointConfig(dir: string): CheckpointConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  } catch (e) {
    throw new CheckpointError(`cannot read ${join(dir, 'config.json')}: ${String(e)}`, { cause: e });
  }
  const r = raw as Partial<CheckpointConfig>;
  if (r.format !== CHECKPOINT_FORMAT) throw new CheckpointError(`${dir}/config.json: format is ${String(r.format)}, expected ${CHECKPOINT_FORMAT}`);
  let model: ModelConfig;
  try {
    model = parseModelConfig(r.model, `${dir}/config.json model`);
  } catch (e) {
    throw new CheckpointError(`${dir}/config.json: invalid model config: ${String(e)}`, { cause: e });
  }
  return { format: CHECKPOINT_FORMAT, model, step: typeof r.step === 'number' ? r.step : 0 };
}

/**
 * Reads weights (and Adam moments when `optimizer` is true and the file exists) and checks every
 * tensor against `cfg`.
 * @throws CheckpointError on missing files, missing tensors or shape mismatches.
 */
export async function readCheckpoint(dir: string, cfg: ModelConfig, optimizer: boolean): Promise<HostState> {
  const saved = readCheckpointConfig(dir);
  if (JSON.stringify(saved.model) !== JSON.stringify(cfg)) {
    throw new CheckpointError(`${dir}: model config ${JSON.stringify(saved.model)} does not match this backend's ${JSON.stringify(cfg)}`);
  }
  const load = async (file: string, prefix: string) => {
    let buf: Uint8Array;
    try {
      buf = await readFile(join(dir, file));
    } catch (e) {
      throw new CheckpointError(`cannot read ${join(dir, file)}: ${String(e)}`, { cause: e });
    }
    const { tensors } = decodeSafetensors(buf);
    const out = new Map<string, Float32Array>();
    for (const [name, shape] of paramShapes(cfg)) {
      const t = tensors.get(prefix + name);
      if (!t) throw new CheckpointError(`${file}: missing tensor ${prefix + name}`);
      if (t.shape.join(',') !== shape.join(','))
        throw new CheckpointError(`${file}: tensor ${prefix + name} has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
      out.set(name, t.data);
    }
    return out;
  };
  const params = await load('model.safetensors', '');
  if (!optimizer) return { params, step: saved.step };
  return { params, m: await load('optimizer.safetensors', 'm.'), v: await load('optimizer.safetensors', 'v.'), step: saved.step };
}
