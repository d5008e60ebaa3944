import type { EvalResult } from './evaluate.js';
import { z } from '../util/zod.js';
import { parseOptions } from '../util/check-options.js';

const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;

/** Header and row formatters of the eval table (see {@link evalTable}). */
export interface EvalTable {
  /** The column header for N candidates per problem. */
  header(n: number): string;
  /**
   * One row: the run's label, then Average@N and Pass@N (each with its 95% interval unless `intervals: 'none'`),
   * format rate, valid tool-call rate, mean tool calls, mean turns.
   */
  row(label: string, r: EvalResult): string;
}

/** Options of {@link evalTable}. */
export interface EvalTableOptions {
  /** Characters of the run-label column. @default 22 */
  readonly labelWidth?: number;
  /** Name of the mean-tool-calls column (`tools`, `searches`, `queries`). @default 'tools' */
  readonly toolColumn?: string;
  /** Extra columns of the unbiased pass@k (`eval/pass_at_{k}`), after Pass@N, e.g. `[1, 2]`. @default none */
  readonly passAtK?: readonly number[];
  /**
   * How Average@N and Pass@N show their noise: `'ci95'` the 95% interval `[low–high]` (percent; clustered by problem
   * for Average@N, Wilson for Pass@N), `'stderr'` `±` one standard error (percentage points), `'none'` the value
   * alone. @default 'ci95'
   */
  readonly intervals?: 'ci95' | 'stderr' | 'none';
}

const optionsSchema = z.strictObject({
  labelWidth: z.number().int().positive().optional(),
  toolColumn: z.string().min(1).optional(),
  passAtK: z.array(z.number().int().positive()).optional(),
  intervals: z.enum(['ci95', 'stderr', 'none']).optional(),
});

/**
 * The table the examples, `runHeldOutPipeline` and `agentrl eval` print: Average@N and Pass@N with their 95% intervals,
 * format rate, valid tool-call rate (percent, one decimal), mean tool calls and mean turns (two decimals).
 * ```text
 * run                       avg@2         95% CI   pass@2         95% CI   format  validtool   tools  turns
 * cold start                57.8%    [45.0–70.6]    71.9%    [54.6–84.4]   100.0%      98.4%    0.98   1.98
 * ```
 * The positional form `evalTable(labelWidth, toolColumn, passAtK)` (no intervals) still works.
 * @throws ConfigError for an unknown or wrongly typed option (naming it).
 */
export function evalTable(options?: EvalTableOptions): EvalTable;
/**
 * The positional form of {@link evalTable} (no intervals).
 * @deprecated pass named options: `evalTable({ labelWidth, toolColumn, passAtK })`.
 */
export function evalTable(labelWidth: number, toolColumn: string, passAtK?: readonly number[]): EvalTable;
export function evalTable(first: EvalTableOptions | number = {}, toolColumnArg?: string, passAtKArg: readonly number[] = []): EvalTable {
  const o: EvalTableOptions =
    typeof first === 'number'
      ? { labelWidth: first, toolColumn: toolColumnArg ?? 'tools', passAtK: passAtKArg, intervals: 'none' }
      : parseOptions(optionsSchema, first, 'evalTable options');
  const labelWidth = o.labelWidth ?? 22;
  const toolColumn = o.toolColumn ?? 'tools';
  const passAtK = o.passAtK ?? [];
  const intervals = o.intervals ?? 'ci95';
  const toolWidth = Math.max(7, toolColumn.length + 1);
  const noiseWidth = intervals === 'ci95' ? 14 : intervals === 'stderr' ? 8 : 0;
  const noiseHeader = intervals === 'ci95' ? '95% CI' : 'stderr';
  const noise = (m: Record<string, number>, key: string): string[] => {
    if (intervals === 'none') return [];
    if (intervals === 'stderr') {
      const se = m[`${key}_stderr`];
      return [(se === undefined ? '±?' : `±${(se * 100).toFixed(1)}`).padStart(noiseWidth)];
    }
    const low = m[`${key}_ci95_low`];
    const high = m[`${key}_ci95_high`];
    return [(low === undefined || high === undefined ? '' : `[${(low * 100).toFixed(1)}–${(high * 100).toFixed(1)}]`).padStart(noiseWidth)];
  };
  return {
    header: (n: number): string =>
      [
        'run'.padEnd(labelWidth),
        `avg@${n}`.padStart(8),
        ...(intervals === 'none' ? [] : [noiseHeader.padStart(noiseWidth)]),
        `pass@${n}`.padStart(8),
        ...(intervals === 'none' ? [] : [noiseHeader.padStart(noiseWidth)]),
        ...passAtK.map((k) => `pass@${k}`.padStart(8)),
        'format'.padStart(8),
        'validtool'.padStart(10),
        toolColumn.padStart(toolWidth),
        'turns'.padStart(6),
      ].join(' '),
    row: (label: string, r: EvalResult): string => {
      const m = r.metrics;
      return [
        label.padEnd(labelWidth),
        pct(m['eval/average_at_n']).padStart(8),
        ...noise(m, 'eval/average_at_n'),
        pct(m['eval/pass_at_n']).padStart(8),
        ...noise(m, 'eval/pass_at_n'),
        ...passAtK.map((k) => pct(m[`eval/pass_at_${k}`]).padStart(8)),
        pct(m['eval/format_rate']).padStart(8),
        pct(m['eval/valid_tool_call_rate']).padStart(10),
        (m['eval/tool_calls'] ?? 0).toFixed(2).padStart(toolWidth),
        (m['eval/turns'] ?? 0).toFixed(2).padStart(6),
      ].join(' ');
    },
  };
}
