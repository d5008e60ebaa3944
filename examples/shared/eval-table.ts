/** The before/after table the examples print: Average@N, Pass@N, format, valid tool calls, tool calls, turns. */
import type { EvalResult } from 'agentrl';

const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;

/**
 * Header and row formatters for one example's table.
 * @param labelWidth - characters of the run-label column.
 * @param toolColumn - name of the mean-tool-calls column (`tools`, `searches`, `queries`).
 */
export function evalTable(labelWidth: number, toolColumn: string) {
  const toolWidth = Math.max(7, toolColumn.length + 1);
  return {
    header: (n: number): string =>
      ['run'.padEnd(labelWidth), `avg@${n}`.padStart(8), `pass@${n}`.padStart(8), 'format'.padStart(8), 'validtool'.padStart(10), toolColumn.padStart(toolWidth), 'turns'.padStart(6)].join(' '),
    row: (label: string, r: EvalResult): string => {
      const m = r.metrics;
      return [
        label.padEnd(labelWidth),
        pct(m['eval/average_at_n']).padStart(8),
        pct(m['eval/pass_at_n']).padStart(8),
        pct(m['eval/format_rate']).padStart(8),
        pct(m['eval/valid_tool_call_rate']).padStart(10),
        (m['eval/tool_calls'] ?? 0).toFixed(2).padStart(toolWidth),
        (m['eval/turns'] ?? 0).toFixed(2).padStart(6),
      ].join(' ');
    },
  };
}
