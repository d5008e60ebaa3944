import { appendFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plotRuns, chartSpec, chartsFor, constantCharts, RUN_CHARTS, readRun } from 'agentrl/internal';
import { runCli } from '../../apps/cli/run-cli.js';
import { registerBuiltinCommands } from '../../apps/cli/commands.js';
import { scriptedRun } from '../helpers/scripted-run.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Hazard: charts drawn from no data, or a report missing the curves a run is judged by. */
describe('agentrl plot', () => {
  it('writes SVG + PNG per chart with the run data, and an HTML report with trajectories', async () => {
    const dir = await scriptedRun({ steps: 3 });
    await appendFile(join(dir, 'metrics.jsonl'), JSON.stringify({ step: 3, 'eval/average_at_n': 0.5, 'eval/pass_at_n': 1, 'eval/n': 4 }) + '\n');
    const r = await plotRuns([dir]);
    const names = r.charts.map((c) => c.name);
    for (const n of ['reward', 'correct', 'format', 'valid-tool-calls', 'tool-calls', 'turns', 'loss', 'time', 'eval']) expect(names).toContain(n);
    // on-policy with a mock learner, clip fraction and KL are 0 at every step: folded into one line, not two flat panels
    for (const n of ['clip-frac', 'kl']) expect(names).not.toContain(n);
    for (const c of r.charts) {
      const png = await readFile(c.png);
      expect(png.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
      expect((await stat(c.png)).size).toBeGreaterThan(2000);
      const svg = await readFile(c.svg, 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toMatch(/<path[^>]+d="M/); // a drawn line, not an empty frame
    }
    const html = await readFile(r.report, 'utf8');
    expect(html).toContain('Reward (mean)');
    expect(html).toMatch(/Constant throughout \(not drawn\): Clip fraction = 0; KL \(sampler vs learner\) = 0/);
    expect(html).toContain('tool call · code_interpreter');
    expect(html).toContain('class="seg trained');
  });

  it('puts each metric of each run in the chart data, raw and smoothed', async () => {
    const dir = await scriptedRun({ steps: 2 });
    const run = await readRun(dir);
    const spec = chartSpec([run, { ...run, name: 'copy' }], RUN_CHARTS.find((c) => c.name === 'time')!);
    const values = (spec['data'] as { values: { series: string; step: number; value: number; smoothed: number }[] }).values;
    expect(new Set(values.map((v) => v.series.replace(/\n/g, ' ')))).toEqual(
      new Set([`${run.name} · time/rollout_s`, `${run.name} · time/train_s`, 'copy · time/rollout_s', 'copy · time/train_s']),
    );
    expect(values.filter((v) => v.series === 'copy · time/train_s').map((v) => v.value)).toEqual(
      run.metrics.map((m) => Number((m['time/train_s'] as number).toPrecision(12))),
    );
  });

  it('exits 2 on usage errors and 1 on a folder that is not a run', async () => {
    registerBuiltinCommands();
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), signal: new AbortController().signal };
    expect(await runCli(['plot'], io)).toBe(2);
    expect(await runCli(['plot', '/nonexistent-run-dir'], io)).toBe(1);
    expect(out.join('')).toMatch(/run directory not found/);
  });
});

describe('the eval charts', () => {
  it('draw one metric family each, rates and Average/Pass@N only (counts such as eval/n would squash them)', async () => {
    const { evalCharts } = await import('../../src/report/charts.js');
    const row = {
      step: 1,
      'eval/average_at_n': 0.2,
      'eval/pass_at_n': 0.5,
      'eval/format_rate': 0.9,
      'eval/valid_tool_call_rate': 1,
      'eval/tool_use_rate': 0.7,
      'eval/self_correction_rate': 0.1,
      'eval/error_rate': 0,
      'eval/custom_rate': 0.3,
      'eval/n': 4,
      'eval/problems': 16,
      'eval/tool_calls': 1.2,
    };
    const run = { name: 'r', detail: 'r', dir: '/r', trajectories: [], warnings: [], metrics: [row] };
    const charts = evalCharts([run]);
    expect(charts.map((c) => c.metrics)).toEqual([
      ['eval/average_at_n', 'eval/pass_at_n'],
      ['eval/format_rate'],
      ['eval/valid_tool_call_rate', 'eval/tool_use_rate'],
      ['eval/self_correction_rate'],
      ['eval/error_rate'],
      ['eval/custom_rate'],
    ]);
    expect(Math.max(...charts.map((c) => c.metrics.length))).toBeLessThanOrEqual(2);
    expect(evalCharts([{ ...run, metrics: [{ step: 1, 'reward/mean': 0 }] }])).toEqual([]);
  });
});

describe('the held-out curve on the console', () => {
  it('prints one row per evaluated step, step 0 first, in percent', async () => {
    const { formatEvalCurve } = await import('../../src/report/eval-curve.js');
    const metrics: Record<string, number>[] & { step: number }[] = [
      { step: 0, 'eval/average_at_n': 0.34375, 'eval/pass_at_n': 0.5, 'eval/n': 2, 'eval/problems': 16 },
      { step: 1, 'reward/mean': 0.2 },
      { step: 10, 'eval/average_at_n': 0.5, 'eval/pass_at_n': 0.6875, 'eval/n': 2, 'eval/problems': 16 },
    ];
    const lines = formatEvalCurve({ metrics });
    expect(lines[0]).toMatch(/16 problems × 2 samples/);
    expect(lines.slice(2).map((l) => l.trim().split(/\s+/))).toEqual([
      ['0', '34.4%', '50.0%'],
      ['10', '50.0%', '68.8%'],
    ]);
    expect(formatEvalCurve({ metrics: [{ step: 1, 'reward/mean': 1 }] })).toEqual([]);
  });
});

// Hazard (issue 39): the held-out curve was a smoothed spline through 3 points (a hump at 0.84 where the points were
// 0.75, 0.89, 0.72), and always-zero panels filled the page.
describe('sparse curves are drawn as the points measured; always-zero panels fold', () => {
  const run = (rows: Record<string, number>[]) =>
    ({ dir: '/x', name: 'r', detail: 'r', metrics: rows.map((r, i) => ({ step: i, ...r })), trajectories: [], warnings: [] }) as unknown as Parameters<
      typeof chartSpec
    >[0][number];
  it('held-out and few-point charts: markers, straight segments, the raw values only, a tooltip per point', () => {
    const r = run([{ 'eval/average_at_n': 0.75 }, { 'eval/average_at_n': 0.89 }, { 'eval/average_at_n': 0.72 }]);
    const spec = chartSpec([r], { name: 'eval', title: 'Held-out', metrics: ['eval/average_at_n'], yTitle: 'fraction' });
    const layer = spec['layer'] as { mark: { interpolate: string; point?: unknown }; encoding: { y: { field: string }; tooltip: { field: string }[] } }[];
    expect(layer).toHaveLength(1);
    expect(layer[0]!.mark).toMatchObject({ type: 'line', interpolate: 'linear', point: { filled: true } });
    expect(layer[0]!.encoding.y.field).toBe('value');
    expect(layer[0]!.encoding.tooltip.map((t) => t.field)).toEqual(['series', 'step', 'value']);
    // many points: the raw line (straight) under the smoothed one
    const dense = run(Array.from({ length: 40 }, (_, i) => ({ 'reward/mean': Math.sin(i) })));
    const layers = chartSpec([dense], RUN_CHARTS.find((c) => c.name === 'reward')!)['layer'] as {
      mark: { interpolate: string };
      encoding: { y: { field: string } };
    }[];
    expect(layers.map((l) => [l.encoding.y.field, l.mark.interpolate])).toEqual([
      ['value', 'linear'],
      ['smoothed', 'monotone'],
    ]);
  });
  it('a chart at 0 throughout folds (listed by constantCharts); a headline chart or one non-zero value keeps it', () => {
    const r = run([
      { 'reward/mean': 0, 'optim/clip_frac': 0, 'optim/kl_sample_train': 0, 'optim/loss': 0.2 },
      { 'reward/mean': 0, 'optim/clip_frac': 0, 'optim/kl_sample_train': 0.01, 'optim/loss': 0.1 },
    ]);
    expect(chartsFor([r]).map((c) => c.name)).toEqual(['reward', 'loss', 'kl']);
    expect(constantCharts([r]).map((c) => c.chart.name)).toEqual(['clip-frac']);
  });
});
