import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '../../errors/index.js';

/** File written into a `saveState` directory: where the server keeps the checkpoint. */
export const TINKER_CHECKPOINT_FILE = 'tinker-checkpoint.json';

/** Contents of {@link TINKER_CHECKPOINT_FILE}. */
export interface CheckpointPointer {
  /** `tinker://<model_id>/weights/<name>`. */
  readonly tinker_path: string;
  readonly model_id: string;
  readonly base_model: string;
  readonly base_url: string;
}

/**
 * Writes `dir/tinker-checkpoint.json` (creating `dir`).
 * @throws CheckpointError when it cannot be written.
 */
export async function writeCheckpointPointer(dir: string, p: CheckpointPointer): Promise<void> {
  const file = join(dir, TINKER_CHECKPOINT_FILE);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(file, JSON.stringify(p, null, 2) + '\n');
  } catch (cause) {
    throw new CheckpointError(`saved ${p.tinker_path} but cannot write ${file}: ${String(cause)}`, { cause });
  }
}

/**
 * The `tinker://` path a checkpoint reference names: the path itself when it is one, else the `tinker_path` of
 * `path/tinker-checkpoint.json`.
 * @throws CheckpointError when the directory holds no readable pointer.
 */
export async function resolveCheckpointPath(path: string): Promise<string> {
  if (path.startsWith('tinker://')) return path;
  const file = join(path, TINKER_CHECKPOINT_FILE);
  try {
    const j = JSON.parse(await readFile(file, 'utf8')) as { tinker_path?: unknown };
    if (typeof j.tinker_path !== 'string' || !j.tinker_path.startsWith('tinker://')) throw new Error('no tinker:// tinker_path');
    return j.tinker_path;
  } catch (cause) {
    throw new CheckpointError(`${file}: not a tinker checkpoint pointer (${String(cause)})`, { cause });
  }
}
