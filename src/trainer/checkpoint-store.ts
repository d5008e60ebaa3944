import { open, mkdir, readdir, readFile, rename, rm, writeFile } from '../platform/fs.js';
import { join } from '../platform/path.js';
import { processTag } from '../platform/host.js';
import { CheckpointError } from '../errors/index.js';

/** What the Trainer saves beside the backend's weights and optimizer state (`trainer-state.json`). */
export interface TrainerState {
  /** Format tag. */
  readonly format: 'agentrl-trainer-v1';
  /** Steps completed (the next step is `step + 1`). */
  readonly step: number;
  /** Batches taken from the data iterator (the data order position; equals `step`). */
  readonly batchesConsumed: number;
  /**
   * Examples consumed in data order (every one before it trained on or dropped); a streaming run resumes its data
   * there (groups in flight at the checkpoint are rolled out again). Absent in older checkpoints: `batchesConsumed ×
   * questionsPerBatch`.
   */
  readonly examplesConsumed?: number;
  /** The run's seed (data order and per-step sampling seeds derive from it). */
  readonly seed: number;
  /** Weights version: optimizer steps applied (= `step`); samplers record the version they were made from. */
  readonly weightsVersion: number;
  /**
   * Where the weights of `kl.reference: 'base'` are kept (a `saveState` folder written before the run's first update),
   * relative to this checkpoint's folder, so a resumed run computes the KL to the original base weights, not to the
   * resumed ones. Absent when the run has no `kl` to `'base'`.
   */
  readonly klReference?: string;
  /** When it was written (ISO 8601). */
  readonly savedAt: string;
}

/** A complete checkpoint on disk. */
export interface CheckpointRef {
  /** Checkpoint folder: `backend/` (the backend's `saveState`) and `trainer-state.json`. */
  readonly dir: string;
  readonly state: TrainerState;
}

const NAME = /^step-(\d{5,})$/;
const stepDir = (root: string, step: number) => join(root, `step-${String(step).padStart(5, '0')}`);

/** The folder of step `step`'s checkpoint under `root` (`step-NNNNN`). */
export const checkpointDirFor = stepDir;

async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function fsyncTree(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await fsyncTree(p);
    else if (e.isFile()) await fsyncPath(p);
  }
  await fsyncPath(dir);
}

/**
 * Atomic checkpoints under `root` (a run's `checkpoints/` folder): each is written to a temporary folder, every file
 * fsynced, then renamed to `step-NNNNN` (a rename is atomic), and the parent fsynced. A process killed at any moment
 * leaves either the previous checkpoints or the new one complete — never a half-written `step-*` folder. Only the
 * newest `keepLast` are kept.
 */
export class CheckpointStore {
  constructor(
    readonly root: string,
    readonly keepLast: number,
  ) {}

  /**
   * Writes one checkpoint: `writeBackend(dir)` saves the backend's state into `dir`, then `trainer-state.json`.
   * @throws CheckpointError when any write fails (the temporary folder is removed).
   */
  async save(state: Omit<TrainerState, 'format' | 'savedAt'>, writeBackend: (dir: string) => Promise<void>): Promise<CheckpointRef> {
    await mkdir(this.root, { recursive: true });
    const tmp = join(this.root, `.tmp-step-${state.step}-${processTag()}-${Date.now()}`);
    const final = stepDir(this.root, state.step);
    const full: TrainerState = { format: 'agentrl-trainer-v1', ...state, savedAt: new Date().toISOString() };
    try {
      await mkdir(tmp, { recursive: true });
      await writeBackend(join(tmp, 'backend'));
      await writeFile(join(tmp, 'trainer-state.json'), JSON.stringify(full, null, 2) + '\n');
      await fsyncTree(tmp);
      await rm(final, { recursive: true, force: true });
      await rename(tmp, final);
      await fsyncPath(this.root);
    } catch (e) {
      await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw new CheckpointError(`cannot write checkpoint ${final}: ${String(e)}`, { cause: e });
    }
    await this.prune();
    return { dir: final, state: full };
  }

  /** Complete checkpoints, oldest first (temporary folders of interrupted writes are ignored). */
  async list(): Promise<CheckpointRef[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    const out: CheckpointRef[] = [];
    for (const name of names.filter((n) => NAME.test(n)).sort()) {
      const ref = await readCheckpoint(join(this.root, name)).catch(() => undefined);
      if (ref) out.push(ref);
    }
    return out.sort((a, b) => a.state.step - b.state.step);
  }

  /** The newest complete checkpoint, if any. */
  async latest(): Promise<CheckpointRef | undefined> {
    return (await this.list()).at(-1);
  }

  /** Removes leftovers of interrupted writes and all but the newest `keepLast` checkpoints. */
  async prune(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    for (const n of names) if (n.startsWith('.tmp-step-') && !n.includes(`-${processTag()}-`)) await rm(join(this.root, n), { recursive: true, force: true });
    const all = await this.list();
    for (const ref of all.slice(0, Math.max(0, all.length - this.keepLast))) await rm(ref.dir, { recursive: true, force: true });
  }
}

/**
 * Reads a checkpoint folder written by {@link CheckpointStore}.
 * @throws CheckpointError when `trainer-state.json` is missing or malformed.
 */
export async function readCheckpoint(dir: string): Promise<CheckpointRef> {
  let state: TrainerState;
  try {
    state = JSON.parse(await readFile(join(dir, 'trainer-state.json'), 'utf8')) as TrainerState;
  } catch (e) {
    throw new CheckpointError(`${dir} is not a Trainer checkpoint (no readable trainer-state.json)`, { cause: e });
  }
  if (state.format !== 'agentrl-trainer-v1' || !Number.isInteger(state.step)) throw new CheckpointError(`${dir}/trainer-state.json has an unknown format`);
  return { dir, state };
}
