import { ConfigError } from '../errors/config-error.js';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chartSpec, chartsFor, constantCharts } from './charts.js';
import { formatEvalCurve } from './eval-curve.js';
import { html, SafeHtml } from './html.js';
import { describeRunWarnings, readRun, readTrajectory, type RunData } from './run-data.js';
import { renderChartSvg, svgToPng } from './render.js';
import { trajectoryHtml, TRAJECTORY_CSS } from './trajectory-html.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const PLOT_OPTIONS = optionKeys<NonNullable<Parameters<typeof plotRuns>[1]>>({ outDir: true, trajectories: true, maxRecordBytes: true });

/** Files written by {@link plotRuns}. */
export interface PlotResult {
  /** Folder the charts went to. */
  readonly outDir: string;
  /** One entry per chart: its name and the paths of its SVG and PNG. */
  readonly charts: readonly { readonly name: string; readonly svg: string; readonly png: string }[];
  /** The HTML report (charts as images, plus sample trajectories of the last steps). */
  readonly report: string;
  /** Each run's held-out curve as console lines (see `formatEvalCurve`); runs without `eval/*` metrics are left out. */
  readonly evalCurves: readonly { readonly run: string; readonly lines: readonly string[] }[];
  /** One line per run file with skipped (malformed) records, e.g. `run/trajectories.jsonl: 2 malformed record(s) skipped (line 7: not JSON …)`. */
  readonly warnings: readonly string[];
}

/**
 * Writes SVG and PNG charts (reward, correct, format, valid tool-call rate, tool calls, turns, loss, clip
 * fraction, KL, time per step — raw and smoothed — and the eval families when present) and an HTML report for one
 * or more run directories. Several runs are overlaid, one colour per run, labelled by run name. The run files are
 * streamed (bounded memory whatever their size); a malformed record is skipped and counted in `warnings`.
 * `report.html` carries a Content-Security-Policy that allows no script, and every value from the runs is escaped.
 * @param runDirs - Trainer `logDir` folders (each with `metrics.jsonl`).
 * @param opts.outDir - where to write; default `<first run>/plots`.
 * @param opts.trajectories - sample trajectories shown in the report per run (last ones first). @default 6
 * @param opts.maxRecordBytes - longest run-file record read; longer ones are skipped and counted. @default 64 MiB
 * @throws ConfigError for bad options, no run directory, or a run directory that is missing or has no `metrics.jsonl`.
 */
export async function plotRuns(
  runDirs: readonly string[],
  opts: { outDir?: string; trajectories?: number; maxRecordBytes?: number } = {},
): Promise<PlotResult> {
  checkOptions('plotRuns options', PLOT_OPTIONS, opts);
  if (runDirs.length === 0) throw new ConfigError('plotRuns options', [{ path: 'runDirs', message: 'give at least one run directory' }]);
  const runs = await Promise.all(runDirs.map((d) => readRun(d, opts.maxRecordBytes === undefined ? {} : { maxRecordBytes: opts.maxRecordBytes })));
  const outDir = resolve(opts.outDir ?? join(runs[0]!.dir, 'plots'));
  await mkdir(outDir, { recursive: true });
  const charts = [];
  const images: SafeHtml[] = [];
  for (const chart of chartsFor(runs)) {
    const svg = await renderChartSvg(chartSpec(runs, chart));
    const svgPath = join(outDir, `${chart.name}.svg`);
    const pngPath = join(outDir, `${chart.name}.png`);
    await writeFile(svgPath, svg);
    await writeFile(pngPath, await svgToPng(svg));
    charts.push({ name: chart.name, svg: svgPath, png: pngPath });
    // As an image, never inline markup: an SVG shown through <img> runs no script whatever it holds.
    images.push(html`<figure><img alt="${chart.title}" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}"></figure>`);
  }
  const report = join(outDir, 'report.html');
  await writeFile(report, await reportHtml(runs, images, opts.trajectories ?? 6));
  const evalCurves = runs.map((r) => ({ run: r.name, lines: formatEvalCurve(r) })).filter((c) => c.lines.length > 0);
  return { outDir, charts, report, evalCurves, warnings: runs.flatMap(describeRunWarnings) };
}

const fmt = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '—');

function summaryRow(run: RunData): SafeHtml {
  const last = run.metrics[run.metrics.length - 1];
  const f = (k: string) => fmt(last?.[k]);
  const skipped = run.warnings.reduce((n, w) => n + w.skipped, 0);
  return html`<tr><td>${run.name}<br><small>${run.detail}</small></td><td>${run.metrics.length}</td><td>${f('reward/mean')}</td><td>${f('reward/correct')}</td><td>${f('rollout/tool_calls')}</td><td>${f('rollout/valid_tool_call_rate')}</td><td>${skipped}</td></tr>`;
}

const REPORT_CSS = `body{font-family:system-ui,sans-serif;margin:20px;background:#f6f6f6;color:#222}.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;background:#fff;padding:6px;border:1px solid #ddd}figure img{display:block;max-width:100%}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}small{color:#666}${TRAJECTORY_CSS}`;

async function reportHtml(runs: readonly RunData[], charts: readonly SafeHtml[], nTrajectories: number): Promise<string> {
  const trajs: SafeHtml[] = [];
  for (const r of runs) {
    for (const entry of [...r.trajectories].reverse().slice(0, nTrajectories)) {
      const t = await readTrajectory(r, entry);
      if (t) trajs.push(html`<h3>${r.name} · step ${entry.step} · ${entry.id}</h3>${new SafeHtml(trajectoryHtml(t))}`);
    }
  }
  const styleHash = createHash('sha256').update(REPORT_CSS).digest('base64');
  // No script at all; images only from data: URIs; the one style block by its hash.
  const csp = `default-src 'none'; img-src data:; style-src 'sha256-${styleHash}'; base-uri 'none'; form-action 'none'`;
  const warnings = runs.flatMap(describeRunWarnings);
  const constant = constantCharts(runs);
  return html`<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><title>agentrl report: ${runs.map((r) => r.name).join(', ')}</title>
<style>${new SafeHtml(REPORT_CSS)}</style></head>
<body><h1>agentrl run report</h1>
<table><tr><th>run</th><th>steps</th><th>reward (last)</th><th>correct (last)</th><th>tool calls (last)</th><th>valid tool calls (last)</th><th>skipped records</th></tr>${runs.map(summaryRow)}</table>
${warnings.length ? html`<ul class="warnings">${warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
<h2>Curves</h2><div class="charts">${charts}</div>
${constant.length ? html`<p><small>Constant throughout (not drawn): ${constant.map((c, i) => html`${i ? '; ' : ''}${c.chart.title} = ${String(c.value)}`)}</small></p>` : ''}
<h2>Sample trajectories</h2>${trajs.length ? trajs : html`<p>No trajectories recorded (the Trainer writes trajectories.jsonl when logDir is set).</p>`}
</body></html>`.toString();
}
