import type { RunData } from './run-data.js';

/**
 * The held-out curve of a run as console lines: one row per evaluated step (step 0 is before training), with
 * Average@n and Pass@n in percent, plus format and valid tool-call rates when logged. Empty when the run logged no
 * `eval/*` metrics.
 * @example
 * ```text
 * held-out curve (eval/*, 16 problems × 2 samples):
 *   step    Average@n   Pass@n   format   valid tool calls
 *      0        34.4%    50.0%    96.9%              90.0%
 * ```
 */
export function formatEvalCurve(run: Pick<RunData, 'metrics'>): string[] {
  const rows = run.metrics.filter((m) => typeof m['eval/average_at_n'] === 'number');
  if (rows.length === 0) return [];
  const pct = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : '—');
  const last = rows[rows.length - 1]!;
  const shape =
    typeof last['eval/problems'] === 'number' && typeof last['eval/n'] === 'number' ? `, ${last['eval/problems']} problems × ${last['eval/n']} samples` : '';
  const cols: [string, string][] = [
    ['Average@n', 'eval/average_at_n'],
    ['Pass@n', 'eval/pass_at_n'],
    ['format', 'eval/format_rate'],
    ['valid tool calls', 'eval/valid_tool_call_rate'],
  ];
  const shown = cols.filter(([, k]) => rows.some((r) => typeof r[k] === 'number'));
  const head = `  ${'step'.padStart(5)}  ${shown.map(([h]) => h.padStart(Math.max(9, h.length))).join('  ')}`;
  const body = rows.map((r) => `  ${String(r.step).padStart(5)}  ${shown.map(([h, k]) => pct(r[k]).padStart(Math.max(9, h.length))).join('  ')}`);
  return [`held-out curve (eval/*${shape}; step 0 is before training):`, head, ...body];
}
