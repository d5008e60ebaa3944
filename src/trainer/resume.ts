import { existsSync, mkdir, readdir, readFile, rename, rm, writeFile } from '../platform/fs.js';
import { join } from '../platform/path.js';
import { processTag } from '../platform/host.js';
import type { TrainingBackend } from '../backend/types.js';
import { CheckpointError } from '../errors/index.js';
import { CheckpointStore, readCheckpoint, type CheckpointRef } from './checkpoint-store.js';

/**
 * The checkpoint a run resumes from.
 * - `'latest'`: the newest complete checkpoint in `logDir/checkpoints`; `undefined` (a fresh start) when there is none,
 *   so a script can always pass it.
 * - a folder: a checkpoint folder (with `trainer-state.json`) or a run folder whose `checkpoints/` holds one.
 * @throws CheckpointError when a folder is named and holds no checkpoint.
 */
export async function findResumePoint(resume: string, logDir: string | undefined): Promise<CheckpointRef | undefined> {
  if (resume === 'latest') return logDir ? new CheckpointStore(join(logDir, 'checkpoints'), Infinity).latest() : undefined;
  if (existsSync(join(resume, 'trainer-state.json'))) return readCheckpoint(resume);
  const latest = await new CheckpointStore(join(resume, 'checkpoints'), Infinity).latest();
  if (!latest) throw new CheckpointError(`resume: no checkpoint in ${resume} (expected ${join(resume, 'checkpoints', 'step-NNNNN')} or a checkpoint folder)`);
  return latest;
}

/**
 * Saves the backend's current weights (and optimizer state) as the run's `kl.reference: 'base'`, in
 * `root/kl-reference/backend` (`root` is the run's `checkpoints/` folder), written to a temporary folder first and
 * renamed, so a kill leaves no half-written reference. Replaces an earlier one.
 * @returns the `kl-reference` folder (absolute as `root` is).
 * @throws CheckpointError when it cannot be written.
 */
export async function saveKlReference(root: string, backend: TrainingBackend): Promise<string> {
  const final = join(root, 'kl-reference');
  const tmp = join(root, `.tmp-kl-reference-${processTag()}-${Date.now()}`);
  try {
    await mkdir(root, { recursive: true });
    for (const n of await readdir(root)) if (n.startsWith('.tmp-kl-reference-')) await rm(join(root, n), { recursive: true, force: true });
    await mkdir(tmp);
    await backend.saveState(join(tmp, 'backend'));
    await rm(final, { recursive: true, force: true });
    await rename(tmp, final);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw new CheckpointError(`cannot save the KL reference weights to ${final}: ${String(e)}`, { cause: e });
  }
  return final;
}

/**
 * Keeps only the rows of `metrics.jsonl` and `trajectories.jsonl` whose `step` is ≤ `step` (rows of steps after the
 * checkpoint were lost with the crash and are written again), so a resumed run has no duplicate or missing step.
 * Each file is rewritten atomically (temporary file + rename).
 */
export async function truncateRunLogs(logDir: string, step: number): Promise<void> {
  for (const name of ['metrics.jsonl', 'trajectories.jsonl']) {
    const path = join(logDir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    const kept = text.split('\n').filter((line) => {
      if (line.trim() === '') return false;
      try {
        return (JSON.parse(line) as { step?: number }).step! <= step;
      } catch {
        return false; // a line cut off by the crash
      }
    });
    const tmp = `${path}.tmp-${processTag()}`;
    await writeFile(tmp, kept.map((l) => l + '\n').join(''));
    await rename(tmp, path);
  }
}
