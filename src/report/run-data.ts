import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { TrajectoryRecord } from '../trainer/trajectory-log.js';

/** One row of `metrics.jsonl`: `step` plus metric values (numbers; strings are kept but not plotted). */
export type MetricsRow = Readonly<Record<string, number | string>> & { readonly step: number };

/** What a run directory holds, as read by {@link readRun}. */
export interface RunData {
  /** Display name: the directory's base name. */
  readonly name: string;
  /** Absolute path of the run directory. */
  readonly dir: string;
  /** `metrics.jsonl` rows in file order; for a step written twice, the last row wins. */
  readonly metrics: readonly MetricsRow[];
  /** `trajectories.jsonl` records (empty when the run logged none). */
  readonly trajectories: readonly TrajectoryRecord[];
  /** `config.json`, when present. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** Parses JSON lines, skipping blank lines and a final line cut off mid-write by a live run. */
export function parseJsonLines<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // A run still writing can leave a partial last line; it is read again on the next poll.
    }
  }
  return out;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Reads a run directory written by a Trainer with `logDir`: `metrics.jsonl`, `trajectories.jsonl`, `config.json`.
 * @throws Error when `dir` is not a directory or holds no `metrics.jsonl`.
 */
export async function readRun(dir: string): Promise<RunData> {
  const abs = resolve(dir);
  const s = await stat(abs).catch(() => undefined);
  if (!s?.isDirectory()) throw new Error(`run directory not found: ${abs}`);
  const metricsText = await readIfExists(join(abs, 'metrics.jsonl'));
  if (metricsText === undefined) throw new Error(`no metrics.jsonl in ${abs} (is it a Trainer logDir?)`);
  const byStep = new Map<number, MetricsRow>();
  for (const row of parseJsonLines<MetricsRow>(metricsText)) if (typeof row.step === 'number') byStep.set(row.step, row);
  const metrics = [...byStep.values()].sort((a, b) => a.step - b.step);
  const trajectories = parseJsonLines<TrajectoryRecord>((await readIfExists(join(abs, 'trajectories.jsonl'))) ?? '');
  const configText = await readIfExists(join(abs, 'config.json'));
  let config: Record<string, unknown> | undefined;
  try {
    config = configText === undefined ? undefined : (JSON.parse(configText) as Record<string, unknown>);
  } catch {
    config = undefined;
  }
  return { name: basename(abs), dir: abs, metrics, trajectories, ...(config ? { config } : {}) };
}
