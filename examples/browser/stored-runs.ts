/**
 * Reading the demo's runs back from the page's storage (`/runs/<name>`, written by the Trainer with `logDir`): the list
 * of runs, a run's curves from metrics.jsonl, and a step's best trajectory from trajectories.jsonl, rendered by the
 * dashboard's `trajectoryHtml`.
 */
import { trajectoryHtml, type RunStorage, type TrajectoryRecord } from 'agentrl/browser';
import type { StoredRun, TrajectoryView } from './protocol.js';

/** Where the demo's runs live in the storage (the persisted root). */
export const RUNS_DIR = '/runs';

const text = new TextDecoder();

function jsonLines<T>(storage: RunStorage, path: string): T[] {
  const data = storage.read(path);
  if (data === undefined) return [];
  return text
    .decode(data)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return []; // a line cut short by a reload mid-write
      }
    });
}

/** The runs in the storage, newest first (names are ISO times). */
export function listRuns(storage: RunStorage): StoredRun[] {
  if (!storage.isDir(RUNS_DIR)) return [];
  return storage
    .list(RUNS_DIR)
    .filter((e) => e.dir)
    .map((e) => describeRun(storage, e.name))
    .reverse();
}

/** One stored run's step count and checkpoints. */
export function describeRun(storage: RunStorage, name: string): StoredRun {
  const dir = `${RUNS_DIR}/${name}`;
  const steps = jsonLines<{ step: number; 'reward/mean'?: number }>(storage, `${dir}/metrics.jsonl`).filter((r) => typeof r['reward/mean'] === 'number').length;
  const ckpt = `${dir}/checkpoints`;
  const checkpoints = storage.isDir(ckpt)
    ? storage
        .list(ckpt)
        .filter((e) => e.dir && /^step-\d+$/.test(e.name))
        .map((e) => e.name)
    : [];
  return { name, steps, checkpoints };
}

/** The best-rewarded record of step `step` in the run's trajectories.jsonl (the last step when omitted), rendered. */
export function trajectoryView(storage: RunStorage, name: string, step?: number): TrajectoryView | undefined {
  const records = jsonLines<TrajectoryRecord>(storage, `${RUNS_DIR}/${name}/trajectories.jsonl`);
  const at = step ?? Math.max(-Infinity, ...records.map((r) => r.step));
  const best = records.filter((r) => r.step === at).sort((a, b) => b.reward - a.reward)[0];
  return best === undefined ? undefined : { step: best.step, reward: best.reward, html: trajectoryHtml(best) };
}

/** A stored run's curves: reward/mean per step and the held-out Average@n (`eval/average_at_n`, step 0 included). */
export function readRunCurves(storage: RunStorage, name: string): { rewards: [number, number][]; heldOut: [number, number][] } {
  const rows = jsonLines<Record<string, number>>(storage, `${RUNS_DIR}/${name}/metrics.jsonl`);
  return {
    rewards: rows.filter((r) => typeof r['reward/mean'] === 'number').map((r) => [r['step']!, r['reward/mean']!]),
    heldOut: rows.filter((r) => typeof r['eval/average_at_n'] === 'number').map((r) => [r['step']!, r['eval/average_at_n']!]),
  };
}
