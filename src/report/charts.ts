import type { MetricsRow, RunData } from './run-data.js';

/** One chart of a run report: the metrics it draws, each as a raw and a smoothed line. */
export interface ChartDef {
  /** File-safe name, e.g. `'reward'` → `reward.svg`. */
  readonly name: string;
  readonly title: string;
  /** Metric keys of `metrics.jsonl` drawn on this chart. */
  readonly metrics: readonly string[];
  readonly yTitle: string;
}

/** The charts every report draws (a chart with no data in any run is left out). Metric names: docs/metrics.md. */
export const RUN_CHARTS: readonly ChartDef[] = [
  { name: 'reward', title: 'Reward (mean)', metrics: ['reward/mean'], yTitle: 'reward' },
  { name: 'correct', title: 'Correct rate', metrics: ['reward/correct'], yTitle: 'fraction' },
  { name: 'format', title: 'Valid format rate', metrics: ['reward/format'], yTitle: 'fraction' },
  { name: 'valid-tool-calls', title: 'Valid tool-call rate', metrics: ['rollout/valid_tool_call_rate'], yTitle: 'fraction' },
  { name: 'tool-calls', title: 'Tool calls per trajectory', metrics: ['rollout/tool_calls'], yTitle: 'count' },
  { name: 'turns', title: 'Turns per trajectory', metrics: ['rollout/turns'], yTitle: 'count' },
  { name: 'loss', title: 'Loss', metrics: ['optim/loss'], yTitle: 'loss' },
  { name: 'clip-frac', title: 'Clip fraction', metrics: ['optim/clip_frac'], yTitle: 'fraction' },
  { name: 'kl', title: 'KL (sampler vs learner)', metrics: ['optim/kl_sample_train'], yTitle: 'nats' },
  { name: 'time', title: 'Time per step (rollout, train)', metrics: ['time/rollout_s', 'time/train_s'], yTitle: 'seconds' },
];

/**
 * The `eval/*` families, one chart each (a chart mixes only metrics read on the same scale and for the same
 * question). Keys of no family that are rates get a chart of their own; counts (`eval/n`, `eval/problems`) none.
 */
export const EVAL_FAMILIES: readonly ChartDef[] = [
  { name: 'eval', title: 'Held-out accuracy (Average@n, Pass@n)', metrics: ['eval/average_at_n', 'eval/pass_at_n'], yTitle: 'fraction' },
  { name: 'eval-format', title: 'Held-out valid format rate', metrics: ['eval/format_rate'], yTitle: 'fraction' },
  {
    name: 'eval-tool-use',
    title: 'Held-out tool use (valid calls, calls made)',
    metrics: ['eval/valid_tool_call_rate', 'eval/tool_use_rate'],
    yTitle: 'fraction',
  },
  { name: 'eval-self-correction', title: 'Held-out self-correction rate', metrics: ['eval/self_correction_rate'], yTitle: 'fraction' },
  { name: 'eval-errors', title: 'Held-out error rate', metrics: ['eval/error_rate'], yTitle: 'fraction' },
];

/** Exponential moving average with bias correction (as TensorBoard's smoothing), `weight` in [0, 1). */
export function smooth(values: readonly number[], weight = 0.6): number[] {
  let last = 0;
  let debias = 0;
  return values.map((v) => {
    last = last * weight + (1 - weight) * v;
    debias = debias * weight + (1 - weight);
    return last / debias;
  });
}

/** The `eval/*` charts of the runs, one per family of {@link EVAL_FAMILIES} with data (rates and Average/Pass@N only). */
export function evalCharts(runs: readonly RunData[]): ChartDef[] {
  const keys = new Set<string>();
  // Counts (`eval/n`, `eval/problems`, tool calls, turns) would squash the rates: only rates and pass@k are charted.
  const isRate = (k: string) => k.startsWith('eval/') && (k.endsWith('_rate') || k.endsWith('_at_n'));
  for (const r of runs) for (const row of r.metrics) for (const k of Object.keys(row)) if (isRate(k) && typeof row[k] === 'number') keys.add(k);
  const out: ChartDef[] = [];
  for (const f of EVAL_FAMILIES) {
    const metrics = f.metrics.filter((m) => keys.has(m));
    for (const m of metrics) keys.delete(m);
    if (metrics.length > 0) out.push({ ...f, metrics });
  }
  for (const k of [...keys].sort())
    out.push({
      name: `eval-${k
        .slice(5)
        .replace(/[^a-z0-9]+/gi, '-')
        .toLowerCase()}`.slice(0, 80),
      title: `Held-out ${k.slice(5).replace(/_/g, ' ')}`,
      metrics: [k],
      yTitle: 'fraction',
    });
  return out;
}

/** Every chart that has data in at least one of `runs` and is not constant: reward, correct, held-out accuracy, the other training charts, the other eval charts. */
export function chartsFor(runs: readonly RunData[]): ChartDef[] {
  const has = (k: string) => runs.some((r) => r.metrics.some((row) => typeof row[k] === 'number' && Number.isFinite(row[k])));
  const charts = RUN_CHARTS.filter((c) => c.metrics.some(has));
  const seen = new Set(charts.map((c) => c.name));
  const evals = evalCharts(runs).filter((c) => !seen.has(c.name) && seen.add(c.name));
  // The held-out accuracy is what a run is judged by: it comes third, after reward and correct rate.
  const main = evals.filter((c) => c.name === 'eval');
  const at = Math.min(2, charts.length);
  const all = [...charts.slice(0, at), ...main, ...charts.slice(at), ...evals.filter((c) => c.name !== 'eval')];
  // A panel that is 0 throughout (a clip fraction or KL of 0, no held-out errors) says so in one line, not a panel.
  return all.filter((c) => !folded(runs, c));
}

/** Charts always drawn, even when flat: what a run is judged by. */
const HEADLINE = new Set(['reward', 'correct', 'eval']);

/** The charts {@link chartsFor} folds away: every value of every metric in every run is 0 (at least 2 points), headline charts excepted. */
export function constantCharts(runs: readonly RunData[]): { readonly chart: ChartDef; readonly value: number }[] {
  const has = (k: string) => runs.some((r) => r.metrics.some((row) => typeof row[k] === 'number' && Number.isFinite(row[k])));
  const candidates = [...RUN_CHARTS.filter((c) => c.metrics.some(has)), ...evalCharts(runs)];
  return candidates.filter((c) => folded(runs, c)).map((chart) => ({ chart, value: 0 }));
}

function folded(runs: readonly RunData[], chart: ChartDef): boolean {
  if (HEADLINE.has(chart.name)) return false;
  const values = runs.flatMap((r) =>
    r.metrics.flatMap((row) => chart.metrics.map((m) => row[m]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v))),
  );
  return values.length >= 2 && values.every((v) => v === 0);
}

/** Legend label of each run: its name, with the folder name added where two runs share a name. */
export function runLabels(runs: readonly Pick<RunData, 'name' | 'detail'>[]): string[] {
  const count = new Map<string, number>();
  for (const r of runs) count.set(r.name, (count.get(r.name) ?? 0) + 1);
  return runs.map((r) => (count.get(r.name)! > 1 && r.detail !== r.name ? `${r.name} (${r.detail})` : r.name));
}

/** Breaks a legend label into lines of at most `width` characters, after a space where possible, else after `/`, `-` or `_` (never cut). */
export function wrapLabel(label: string, width = 44): string {
  const lines: string[] = [];
  let rest = label;
  while (rest.length > width) {
    const window = rest.slice(0, width);
    // Break after the last space if there is one far enough in, else after `/`, `-` or `_`, else mid-word.
    const space = window.lastIndexOf(' ');
    const other = Math.max(...['/', '-', '_'].map((sep) => window.lastIndexOf(sep)));
    const at = space >= width / 3 ? space : other;
    const cut = at >= width / 3 ? at + 1 : width;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  lines.push(rest);
  return lines.join('\n');
}

const round12 = (v: number): number => Number(v.toPrecision(12));

/** A y domain padded around a (near-)constant chart, whose own domain would be one point with every tick alike. */
function flatDomain(values: readonly number[]): [number, number] | undefined {
  if (values.length === 0) return undefined;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi - lo > 1e-9 * Math.max(1, Math.abs(hi))) return undefined;
  const pad = Math.max(Math.abs(hi) * 0.1, 0.05);
  return [lo - pad, hi + pad];
}

interface Point {
  step: number;
  value: number;
  smoothed: number;
  series: string;
}

function points(runs: readonly RunData[], chart: ChartDef): Point[] {
  const out: Point[] = [];
  const labels = runLabels(runs);
  for (const [ri, run] of runs.entries()) {
    for (const metric of chart.metrics) {
      const rows = run.metrics.filter((r: MetricsRow) => typeof r[metric] === 'number' && Number.isFinite(r[metric]));
      const values = rows.map((r) => r[metric] as number);
      const sm = smooth(values);
      const series = wrapLabel([runs.length > 1 ? labels[ri]! : '', chart.metrics.length > 1 ? metric : ''].filter(Boolean).join(' · ') || metric);
      // 12 significant digits: the debiased average of a constant series is that constant, not ±1e-16 of it
      // (which the chart would magnify into a bump on a degenerate axis).
      rows.forEach((r, i) => {
        out.push({ step: r.step, value: round12(values[i]!), smoothed: round12(sm[i]!), series });
      });
    }
  }
  return out;
}

/**
 * Axis labels: 3 significant digits between 0.001 and 100 000 (and 0), scientific notation outside
 * (`8.5e-6`, never `−0.0000085`).
 */
export const AXIS_LABEL_EXPR =
  "datum.value == 0 || (abs(datum.value) >= 0.001 && abs(datum.value) < 100000) ? format(datum.value, '.3~g') : format(datum.value, '.2~e')";

/** Series with at most this many points are drawn as points joined by straight segments, without smoothing. */
export const SPARSE_POINTS = 12;

/**
 * A Vega-Lite spec for one chart over one or more runs: a faint raw line and a solid smoothed line per series
 * (series = run × metric), legend swatches solid, labels wrapped onto several lines instead of cut. A chart whose
 * series are sparse (held-out evals, or at most {@link SPARSE_POINTS} points) is drawn as the measured points with
 * markers, joined by straight segments — no smoothing and no spline, which would invent values between few points.
 * Every point carries a tooltip (series, step, value). Rendered server-side by `renderChartSvg` and in the dashboard.
 */
export function chartSpec(runs: readonly RunData[], chart: ChartDef, size = { width: 420, height: 220 }): Record<string, unknown> {
  const data = points(runs, chart);
  const counts = new Map<string, number>();
  for (const p of data) counts.set(p.series, (counts.get(p.series) ?? 0) + 1);
  const sparse = chart.name.startsWith('eval') || Math.max(0, ...counts.values()) <= SPARSE_POINTS;
  const flat = flatDomain(data.flatMap((p) => (sparse ? [p.value] : [p.value, p.smoothed])));
  const encoding = (field: string) => ({
    x: { field: 'step', type: 'quantitative', title: 'step', axis: { tickMinStep: 1, labelExpr: AXIS_LABEL_EXPR } },
    y: { field, type: 'quantitative', title: chart.yTitle, scale: flat ? { domain: flat } : { zero: false, nice: true }, axis: { labelExpr: AXIS_LABEL_EXPR } },
    color: {
      field: 'series',
      type: 'nominal',
      title: null,
      legend: {
        orient: 'bottom',
        direction: 'vertical',
        columns: 1,
        labelLimit: 0,
        labelExpr: "split(datum.label, '\\n')",
        symbolType: 'stroke',
        symbolStrokeWidth: 3,
        symbolOpacity: 1,
      },
    },
    tooltip: [
      { field: 'series', type: 'nominal' },
      { field: 'step', type: 'quantitative' },
      { field: 'value', type: 'quantitative', format: '.4~g' },
    ],
  });
  const layer = sparse
    ? [{ mark: { type: 'line', strokeWidth: 2, interpolate: 'linear', point: { filled: true, size: 36 } }, encoding: encoding('value') }]
    : [
        { mark: { type: 'line', strokeWidth: 1, opacity: 0.3, interpolate: 'linear' }, encoding: encoding('value') },
        { mark: { type: 'line', strokeWidth: 2, opacity: 1, interpolate: 'monotone' }, encoding: encoding('smoothed') },
      ];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    width: size.width,
    height: size.height,
    background: 'white',
    data: { values: data },
    layer,
  };
}
