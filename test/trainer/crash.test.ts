import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from 'agentrl/internal';

const SCRIPT = fileURLToPath(new URL('./fixtures/resumable-run.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STEPS = 5;

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

/** Runs the resumable training script; `onLine` may kill it (returns the signal to send). */
function run(logDir: string, pauseMs: number, onLine: (line: string) => NodeJS.Signals | undefined = () => undefined): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, logDir, String(STEPS), String(pauseMs)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const sig = onLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (sig) child.kill(sig);
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
}

const rows = async (dir: string) =>
  (await readFile(join(dir, 'metrics.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);

/**
 * Hazard: a run that dies cannot continue, or continues wrong — replaying batches, duplicating or losing
 * metrics rows, or loading a half-written checkpoint. SIGKILL at random points (and in the middle of writing a
 * checkpoint), then resume, must give exactly the uninterrupted run's steps.
 */
describe('crash and resume (SIGKILL at random points, real child processes)', () => {
  it('finishes with every step exactly once and the same metrics as an uninterrupted run', async () => {
    const ref = await mkdtemp(join(tmpdir(), 'agentrl-ref-'));
    const done = await run(ref, 0);
    expect(done.code, done.out).toBe(0);
    const expected = await rows(ref);
    expect(expected.map((r) => r['step'])).toEqual([1, 2, 3, 4, 5]);

    const dir = await mkdtemp(join(tmpdir(), 'agentrl-crash-'));
    const rng = mulberry32(20261201);
    const kinds: string[] = [];
    let finished = false;
    for (let attempt = 0; attempt < 10 && !finished; attempt++) {
      // Each attempt lets 1–2 checkpoints complete, then kills: alternately while the next checkpoint is half written,
      // or right after the next step (before its checkpoint) — each loses the step in flight and nothing more.
      const midCheckpoint = attempt % 2 === 0;
      const saved = 1 + Math.floor(rng() * 2);
      let checkpoints = 0;
      let steps = 0;
      const r = await run(dir, 300, (line) => {
        if (line.startsWith('CHECKPOINT_WRITING')) checkpoints++;
        if (line.startsWith('STEP')) steps++;
        if (midCheckpoint && checkpoints === saved + 1) return 'SIGKILL';
        if (!midCheckpoint && steps === saved + 1) return 'SIGKILL';
        return undefined;
      });
      kinds.push(r.signal === 'SIGKILL' ? (midCheckpoint ? 'killed mid-checkpoint' : `killed after a step`) : `exit ${r.code}`);
      finished = r.code === 0;
    }
    expect(finished, kinds.join(', ')).toBe(true);
    expect(kinds.filter((k) => k === 'killed mid-checkpoint').length).toBeGreaterThanOrEqual(1);
    const got = await rows(dir);
    expect(got.map((r) => r['step'])).toEqual([1, 2, 3, 4, 5]);
    for (const [i, r] of got.entries()) {
      for (const k of ['reward/mean', 'optim/loss', 'rollout/trajectory_tokens']) expect(r[k], `step ${i + 1} ${k}`).toBe(expected[i]![k]);
    }
    // No half-written checkpoint survives; only complete ones (keepLast 3).
    const left = await readdir(join(dir, 'checkpoints'));
    expect(left.filter((n) => n.startsWith('.tmp'))).toEqual([]);
    expect(left).toEqual(['step-00003', 'step-00004', 'step-00005']);
  }, 300_000);

  it('SIGTERM ends the step in flight, writes a checkpoint, exits 0 and says how to resume', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-term-'));
    const r = await run(dir, 0, (line) => (line === 'STEP 2' ? 'SIGTERM' : undefined));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/stopped after step [23]; resume with/);
    const last = Number(/stopped after step (\d)/.exec(r.out)![1]);
    expect(await readdir(join(dir, 'checkpoints'))).toContain(`step-0000${last}`);
    const resumed = await run(dir, 0);
    expect(resumed.out).toContain(`DONE ${STEPS} resumed-from ${last}`);
    expect((await rows(dir)).map((x) => x['step'])).toEqual([1, 2, 3, 4, 5]);
  }, 300_000);
});
