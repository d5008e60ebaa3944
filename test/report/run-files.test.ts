import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { plotRuns, readRun, RunIndex, startDashboard } from 'agentrl/internal';
import { scriptedRun } from '../helpers/scripted-run.js';

const run = promisify(execFile);

/** Hazard: one bad line of a run file fails `plot` or the dashboard for the whole run (a 500, a thrown error). */
describe('run files with malformed records', () => {
  it('skips every kind of bad record with a counted warning; plot and the dashboard still work', async () => {
    const dir = await scriptedRun({ steps: 2 });
    const good = (await readFile(join(dir, 'trajectories.jsonl'), 'utf8')).trim().split('\n');
    const bad = [
      '{"step": 3, "id": "cut', // not JSON (cut mid-record)
      '[1, 2, 3]', // JSON, not an object
      '"a string"',
      'null',
      '{"id": "no-step"}', // no step
      '{"step": "2", "id": "string-step"}', // step of the wrong type
      '\u0000\u0001\u00ff garbage',
      '{"step": 2, "id": "' + 'x'.repeat(5000) + '"}', // over the record limit set below
    ];
    await writeFile(join(dir, 'trajectories.jsonl'), [good[0], ...bad, ...good.slice(1), ''].join('\n'));
    await appendFile(join(dir, 'metrics.jsonl'), ['{"step": 9, ', '[]', '{"reward/mean": 1}', '{"step": "3"}', ''].join('\n'));
    const r = await readRun(dir, { maxRecordBytes: 4096 });
    expect(r.trajectories).toHaveLength(good.length);
    const t = r.warnings.find((w) => w.file === 'trajectories.jsonl')!;
    expect(t.skipped).toBe(bad.length);
    expect(t.examples[0]).toMatchObject({ line: 2, reason: expect.stringMatching(/not JSON/) });
    expect(r.warnings.find((w) => w.file === 'metrics.jsonl')?.skipped).toBe(4);
    expect(r.metrics.map((m) => m.step)).toEqual([1, 2]);

    const p = await plotRuns([dir], { maxRecordBytes: 4096 });
    expect(p.charts.length).toBeGreaterThan(5);
    expect(p.warnings.join('\n')).toMatch(/trajectories\.jsonl: 8 malformed record\(s\) skipped/);
    expect(await readFile(p.report, 'utf8')).toContain('<td>12</td></tr>'); // skipped records, in the summary table

    const dash = await startDashboard({ runDirs: [dir], port: 0, maxRecordBytes: 4096 });
    try {
      const runs = (await (await fetch(`${dash.url}/api/runs`)).json()) as { skipped: number; warnings: string[] }[];
      expect(runs[0]!.skipped).toBe(12);
      for (const path of [
        '/api/charts',
        '/api/runs/0/steps',
        '/api/runs/0/trajectories?step=1',
        '/api/runs/0/trajectory?step=1&index=0',
        '/api/charts/reward.svg',
      ]) {
        expect((await fetch(dash.url + path)).status, path).toBe(200);
      }
    } finally {
      await dash.close();
    }
  });

  it('reads only what was appended; leaves a half-written line for later; starts over when a file is rewritten', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-index-'));
    const traj = (step: number, id: string) =>
      JSON.stringify({ step, id, reward: 1, correct: true, stopReason: 'answer', toolCalls: 0, turns: 1, advantage: 0, messages: [], segments: [] });
    await writeFile(join(dir, 'metrics.jsonl'), '{"step":1,"reward/mean":0.5}\n');
    await writeFile(join(dir, 'trajectories.jsonl'), traj(1, 'a') + '\n' + traj(1, 'b').slice(0, 20));
    const index = new RunIndex(dir);
    await index.refresh();
    expect(index.snapshot().trajectories.map((t) => t.id)).toEqual(['a']);
    expect(index.snapshot().warnings).toEqual([]); // a line still being written is no malformed record
    await appendFile(join(dir, 'trajectories.jsonl'), traj(1, 'b').slice(20) + '\n' + traj(2, 'c') + '\n');
    await appendFile(join(dir, 'metrics.jsonl'), '{"step":2,"reward/mean":0.7}\n');
    await index.refresh();
    expect(index.snapshot().trajectories.map((t) => `${t.step}/${t.id}/${t.index}`)).toEqual(['1/a/0', '1/b/1', '2/c/0']);
    expect(index.steps()).toEqual([1, 2]);
    expect(index.snapshot().metrics.map((m) => m['reward/mean'])).toEqual([0.5, 0.7]);
    // A resumed run truncates its logs (a new file in place): the index starts over instead of reading garbage offsets.
    await writeFile(join(dir, 'trajectories.jsonl.tmp'), traj(1, 'z') + '\n' + traj(1, 'y') + '\n' + traj(1, 'x') + '\n');
    await rm(join(dir, 'trajectories.jsonl'));
    await run('mv', [join(dir, 'trajectories.jsonl.tmp'), join(dir, 'trajectories.jsonl')]);
    await index.refresh();
    expect(index.snapshot().trajectories.map((t) => t.id)).toEqual(['z', 'y', 'x']);
    // Shrunk in place: also starts over.
    await writeFile(join(dir, 'metrics.jsonl'), '{"step":1,"reward/mean":0.1}\n');
    await index.refresh();
    expect(index.snapshot().metrics.map((m) => m['reward/mean'])).toEqual([0.1]);
  });
});

/** Hazard: a run past ~600 MiB of trajectories cannot be viewed ("Invalid string length"), or opening it takes all memory. */
describe('a trajectories.jsonl larger than a JavaScript string can hold', () => {
  it('opens with memory bounded by one record, not by the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-big-'));
    try {
      await writeFile(join(dir, 'metrics.jsonl'), '{"step":1,"reward/mean":0.5}\n');
      // 544 records of 1 MiB (token text of a long trajectory) and some malformed ones: 544 MiB, past V8's 512 MiB string limit.
      const out = createWriteStream(join(dir, 'trajectories.jsonl'));
      const filler = 'ab<c> de'.repeat(128 * 1024) + '"\\';
      for (let i = 0; i < 544; i++) {
        const rec =
          JSON.stringify({
            step: 1 + Math.floor(i / 4),
            id: `t${i}`,
            reward: i % 2,
            correct: i % 2 === 1,
            stopReason: 'answer',
            toolCalls: 1,
            turns: 2,
            advantage: 0.5,
            messages: [],
            segments: [{ kind: 'completion', mask: 1, text: filler, tokens: 1 }],
          }) + '\n';
        if (!out.write(rec)) await new Promise<void>((r) => out.once('drain', () => r()));
        if (i % 64 === 0) out.write('{"step": 1, "id": "cut\n'); // malformed, counted
      }
      await new Promise<void>((r) => out.end(r));
      const size = (await stat(join(dir, 'trajectories.jsonl'))).size;
      expect(size).toBeGreaterThan(0x1fffffe8); // more characters than any JS string can hold
      // In a child process: its RSS measures this reader alone, not the test runner's.
      const script = `
        const { RunIndex, readTrajectory } = await import(${JSON.stringify(resolve('src/report/run-data.ts'))});
        const base = process.memoryUsage().rss; let peak = base;
        const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
        const t0 = performance.now();
        const index = new RunIndex(${JSON.stringify(dir)});
        await index.refresh(true);
        const snap = index.snapshot();
        const last = await readTrajectory(snap, snap.trajectories.at(-1));
        peak = Math.max(peak, process.memoryUsage().rss);
        clearInterval(timer);
        console.log(JSON.stringify({ n: snap.trajectories.length, steps: index.steps().length, skipped: snap.warnings[0]?.skipped, lastId: last.id, deltaMiB: (peak - base) / 2 ** 20, s: (performance.now() - t0) / 1000 }));`;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { maxBuffer: 1 << 20 });
      const res = JSON.parse(stdout.trim().split('\n').at(-1)!) as { n: number; steps: number; skipped: number; lastId: string; deltaMiB: number; s: number };
      console.log(`indexed ${(size / 2 ** 20).toFixed(0)} MiB of trajectories.jsonl in ${res.s.toFixed(1)} s, peak RSS +${res.deltaMiB.toFixed(0)} MiB`);
      expect(res).toMatchObject({ n: 544, steps: 136, skipped: 9, lastId: 't543' });
      expect(res.deltaMiB).toBeLessThan(160);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000); // ~6 s on a quiet 2-core machine; minutes when it is shared
});
