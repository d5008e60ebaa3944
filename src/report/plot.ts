import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chartSpec, chartsFor } from './charts.js';
import { readRun, type RunData } from './run-data.js';
import { renderChartSvg, svgToPng } from './render.js';
import { escapeHtml, trajectoryHtml, TRAJECTORY_CSS } from './trajectory-html.js';

/** Files written by {@link plotRuns}. */
export interface PlotResult {
  /** Folder the charts went to. */
  readonly outDir: string;
  /** One entry per chart: its name and the paths of its SVG and PNG. */
  readonly charts: readonly { readonly name: string; readonly svg: string; readonly png: string }[];
  /** The HTML report (charts inline, plus sample trajectories of the last steps). */
  readonly report: string;
}

/**
 * Writes SVG and PNG charts (reward, correct, format, valid tool-call rate, tool calls and turns, loss, clip
 * fraction, KL, time per step — raw and smoothed — and eval curves when present) and an HTML report for one or
 * more run directories. Several runs are overlaid, one colour per run.
 * @param runDirs - Trainer `logDir` folders (each with `metrics.jsonl`).
 * @param opts.outDir - where to write; default `<first run>/plots`.
 * @param opts.trajectories - sample trajectories shown in the report (last ones first). @default 6
 * @throws Error when a run directory has no `metrics.jsonl`.
 */
export async function plotRuns(runDirs: readonly string[], opts: { outDir?: string; trajectories?: number } = {}): Promise<PlotResult> {
  if (runDirs.length === 0) throw new Error('plotRuns: give at least one run directory');
  const runs = await Promise.all(runDirs.map((d) => readRun(d)));
  const outDir = resolve(opts.outDir ?? join(runs[0]!.dir, 'plots'));
  await mkdir(outDir, { recursive: true });
  const charts = [];
  const inline: string[] = [];
  for (const chart of chartsFor(runs)) {
    const svg = await renderChartSvg(chartSpec(runs, chart));
    const svgPath = join(outDir, `${chart.name}.svg`);
    const pngPath = join(outDir, `${chart.name}.png`);
    await writeFile(svgPath, svg);
    await writeFile(pngPath, await svgToPng(svg));
    charts.push({ name: chart.name, svg: svgPath, png: pngPath });
    inline.push(`<figure>${svg}</figure>`);
  }
  const report = join(outDir, 'report.html');
  await writeFile(report, reportHtml(runs, inline, opts.trajectories ?? 6));
  return { outDir, charts, report };
}

function summaryRow(run: RunData): string {
  const last = run.metrics[run.metrics.length - 1];
  const f = (k: string) => (last && typeof last[k] === 'number' ? (last[k] as number).toFixed(3) : '—');
  return `<tr><td>${escapeHtml(run.name)}</td><td>${run.metrics.length}</td><td>${f('reward/mean')}</td><td>${f('reward/correct')}</td><td>${f('rollout/tool_calls')}</td><td>${f('rollout/valid_tool_call_rate')}</td></tr>`;
}

function reportHtml(runs: readonly RunData[], charts: readonly string[], nTrajectories: number): string {
  const trajs = runs.flatMap((r) => [...r.trajectories].reverse().slice(0, nTrajectories).map((t) => `<h3>${escapeHtml(r.name)} · step ${t.step} · ${escapeHtml(t.id)}</h3>${trajectoryHtml(t)}`));
  return `<!doctype html><html><head><meta charset="utf-8"><title>agentrl report: ${escapeHtml(runs.map((r) => r.name).join(', '))}</title>
<style>body{font-family:system-ui,sans-serif;margin:20px;background:#f6f6f6;color:#222}.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;background:#fff;padding:6px;border:1px solid #ddd}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}${TRAJECTORY_CSS}</style></head>
<body><h1>agentrl run report</h1>
<table><tr><th>run</th><th>steps</th><th>reward (last)</th><th>correct (last)</th><th>tool calls (last)</th><th>valid tool calls (last)</th></tr>${runs.map(summaryRow).join('')}</table>
<h2>Curves</h2><div class="charts">${charts.join('')}</div>
<h2>Sample trajectories</h2>${trajs.length ? trajs.join('') : '<p>No trajectories recorded (the Trainer writes trajectories.jsonl when logDir is set).</p>'}
</body></html>`;
}
