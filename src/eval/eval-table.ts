import type { EvalResult } from './evaluate.js';

const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;

/** Header and row formatters of the eval table (see {@link evalTable}). */
export interface EvalTable {
  /** The column header for N candidates per problem. */
  header(n: number): string;
  /** One row: the run's label, then Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns. */
  row(label: string, r: EvalResult): string;
}

/**
 * The table the examples and `agentrl eval` print: Average@N, Pass@N, format rate, valid tool-call rate (percent, one
 * decimal), mean tool calls and mean turns (two decimals).
 * @param labelWidth - characters of the run-label column.
 * @param toolColumn - name of the mean-tool-calls column (`tools`, `searches`, `queries`).
 * @param passAtK - extra columns of the unbiased pass@k (`eval/pass_at_{k}`), after Pass@N, e.g. `[1, 2]`. @default none
 */
export function evalTable(labelWidth: number, toolColumn: string, passAtK: readonly number[] = []): EvalTable {
  const toolWidth = Math.max(7, toolColumn.length + 1);
  return {
    header: (n: number): string =>
      ['run'.padEnd(labelWidth), `avg@${n}`.padStart(8), `pass@${n}`.padStart(8), ...passAtK.map((k) => `pass@${k}`.padStart(8)), 'format'.padStart(8), 'validtool'.padStart(10), toolColumn.padStart(toolWidth), 'turns'.padStart(6)].join(' '),
    row: (label: string, r: EvalResult): string => {
      const m = r.metrics;
      return [
        label.padEnd(labelWidth),
        pct(m['eval/average_at_n']).padStart(8),
        pct(m['eval/pass_at_n']).padStart(8),
        ...passAtK.map((k) => pct(m[`eval/pass_at_${k}`]).padStart(8)),
        pct(m['eval/format_rate']).padStart(8),
        pct(m['eval/valid_tool_call_rate']).padStart(10),
        (m['eval/tool_calls'] ?? 0).toFixed(2).padStart(toolWidth),
        (m['eval/turns'] ?? 0).toFixed(2).padStart(6),
      ].join(' ');
    },
  };
}
