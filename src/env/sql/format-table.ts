import { fitCount, truncateHead } from '../search/fit-budget.js';
import type { SqlQueryResult } from './types.js';

/** Longest cell shown, in characters; longer ones end with `…`. */
export const MAX_CELL_CHARS = 200;

/** One value as a table cell: `NULL`, numbers as JS prints them, BLOBs as `x'…'` hex, newlines and `|` escaped. */
export function formatCell(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = 'NULL';
  else if (v instanceof Uint8Array) s = `x'${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}'`;
  else s = String(v);
  s = s.replace(/\r?\n/g, '\\n').replace(/\|/g, '\\|');
  return s.length > MAX_CELL_CHARS ? s.slice(0, MAX_CELL_CHARS - 1) + '…' : s;
}

/**
 * A compact text table of a successful query, shown to the model:
 * ```text
 * name | population
 * China | 1392730000
 * India | 1352617328
 * (2 rows)
 * ```
 * Shows at most `rowLimit` rows, and as many of those as fit `maxTokens` (whole rows); the footer says when rows
 * were left out (`(showing the first 50 rows; the query returned more)`). A header that alone does not fit is cut.
 */
export function formatTable(
  result: Pick<SqlQueryResult, 'columns' | 'rows' | 'truncated'>,
  opts: { readonly rowLimit: number; readonly maxTokens: number; readonly countTokens: (s: string) => number },
): string {
  const header = result.columns.map(formatCell).join(' | ');
  const lines = result.rows.slice(0, opts.rowLimit).map((r) => r.map(formatCell).join(' | '));
  const more = result.truncated || result.rows.length > opts.rowLimit;
  const render = (n: number) => {
    const footer = n < lines.length || more ? `(showing the first ${n} row${n === 1 ? '' : 's'}; the query returned more)` : `(${n} row${n === 1 ? '' : 's'})`;
    return [header, ...lines.slice(0, n), footer].join('\n');
  };
  const n = fitCount(lines.length, render, opts.maxTokens, opts.countTokens);
  return truncateHead(render(n), opts.maxTokens, opts.countTokens);
}
