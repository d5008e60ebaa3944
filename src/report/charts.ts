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
  { name: 'tool-calls-turns', title: 'Tool calls and turns per trajectory', metrics: ['rollout/tool_calls', 'rollout/turns'], yTitle: 'count' },
  { name: 'loss', title: 'Loss', metrics: ['optim/loss'], yTitle: 'loss' },
  { name: 'clip-frac', title: 'Clip fraction', metrics: ['optim/clip_frac'], yTitle: 'fraction' },
  { name: 'kl', title: 'KL (sampler vs learner)', metrics: ['optim/kl_sample_train'], yTitle: 'nats' },
  { name: 'time', title: 'Time per step', metrics: ['time/rollout_s', 'time/train_s'], yTitle: 'seconds' },
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

/** The `eval/*` chart of the runs (rates and Average/Pass@N), when any run logged evaluation metrics. */
export function evalChart(runs: readonly RunData[]): ChartDef | undefined {
  const keys = new Set<string>();
  // Rates and pass@k on one [0, 1] chart; counts (`eval/n`, `eval/problems`, tool calls) would squash them.
  const isRate = (k: string) => k.startsWith('eval/') && (k.endsWith('_rate') || k.endsWith('_at_n'));
  for (const r of runs) for (const row of r.metrics) for (const k of Object.keys(row)) if (isRate(k) && typeof row[k] === 'number') keys.add(k);
  if (keys.size === 0) return undefined;
  return { name: 'eval', title: 'Evaluation (held-out)', metrics: [...keys].sort(), yTitle: 'fraction' };
}

/** Every chart that has data in at least one of `runs`, eval last. */
export function chartsFor(runs: readonly RunData[]): ChartDef[] {
  const has = (k: string) => runs.some((r) => r.metrics.some((row) => typeof row[k] === 'number' && Number.isFinite(row[k])));
  const charts = RUN_CHARTS.filter((c) => c.metrics.some(has));
  const ev = evalChart(runs);
  return ev ? [...charts, ev] : charts;
}

interface Point { step: number; value: number; smoothed: number; series: string }

function points(runs: readonly RunData[], chart: ChartDef): Point[] {
  const out: Point[] = [];
  for (const run of runs) {
    for (const metric of chart.metrics) {
      const rows = run.metrics.filter((r: MetricsRow) => typeof r[metric] === 'number' && Number.isFinite(r[metric]));
      const values = rows.map((r) => r[metric] as number);
      const sm = smooth(values);
      const series = [runs.length > 1 ? run.name : '', chart.metrics.length > 1 ? metric : ''].filter(Boolean).join(' · ') || metric;
      rows.forEach((r, i) => out.push({ step: r.step, value: values[i]!, smoothed: sm[i]!, series }));
    }
  }
  return out;
}

/**
 * A Vega-Lite spec for one chart over one or more runs: a faint raw line and a solid smoothed line per series
 * (series = run × metric). Rendered server-side by {@link renderChartSvg} and in the dashboard.
 */
export function chartSpec(runs: readonly RunData[], chart: ChartDef, size = { width: 420, height: 220 }): Record<string, unknown> {
  const enc = (field: string, opacity: number) => ({
    mark: { type: 'line', strokeWidth: opacity < 1 ? 1 : 2, opacity, interpolate: 'monotone' },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'step', axis: { tickMinStep: 1 } },
      y: { field, type: 'quantitative', title: chart.yTitle, scale: { zero: false }, axis: { format: '.3~g' } },
      color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2, labelLimit: 240 } },
    },
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    width: size.width,
    height: size.height,
    background: 'white',
    data: { values: points(runs, chart) },
    layer: [enc('value', 0.3), enc('smoothed', 1)],
  };
}
