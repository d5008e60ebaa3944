/**
 * Execution-match comparison of two query results (Spider test-suite `result_eq` semantics by default).
 * Pure functions; no I/O.
 */

/** How two results are compared. */
export interface CompareOptions {
  /**
   * - `'spider'` (default): multisets of rows; row order matters only when `orderMatters`; the predicted columns may
   *   be a permutation of the gold ones (taoyds/test-suite-sql-eval `result_eq`).
   * - `'bag'`: multisets of rows, columns in the same order.
   * - `'set'`: sets of rows (duplicates ignored), columns in the same order (BIRD, SkyRL-SQL).
   */
  readonly mode?: 'spider' | 'bag' | 'set';
  /** Compare row sequences in order (`'spider'` and `'bag'` only). Set it when the gold SQL has `ORDER BY`. @default false */
  readonly orderMatters?: boolean;
  /**
   * Numbers are rounded to this many decimal places before comparing (`12.333333333333334` equals
   * `12.333333333333332` at 6); `null` compares exactly, as Spider and BIRD do. INTEGER and REAL are both JS numbers,
   * so `1` equals `1.0` either way. @default 6
   */
  readonly floatDecimals?: number | null;
}

type Row = readonly unknown[];

function normValue(v: unknown, decimals: number | null): string {
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || decimals === null) return 'd' + String(v);
    const r = Number(v.toFixed(decimals));
    return 'd' + String(Object.is(r, -0) ? 0 : r);
  }
  if (typeof v === 'bigint') return 'd' + v.toString();
  if (v instanceof Uint8Array) return 'b' + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  return 's' + String(v);
}

const rowKey = (row: readonly string[]) => JSON.stringify(row);

function multisetEqual(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const c = counts.get(k);
    if (!c) return false;
    counts.set(k, c - 1);
  }
  return true;
}

/** Tries every column mapping gold→pred consistent with per-column value multisets; at most `limit` full mappings. */
function* columnPermutations(gold: string[][], pred: string[][], width: number, limit = 10_000): Generator<number[]> {
  const colKeys = (rows: string[][], j: number) => rows.map((r) => r[j] ?? '');
  const candidates: number[][] = [];
  for (let i = 0; i < width; i++) {
    const g = colKeys(gold, i);
    candidates.push([...Array(width).keys()].filter((j) => multisetEqual(g, colKeys(pred, j))));
  }
  const used = new Array<boolean>(width).fill(false);
  const perm: number[] = [];
  let yielded = 0;
  function* rec(i: number): Generator<number[]> {
    if (yielded >= limit) return;
    if (i === width) {
      yielded++;
      yield [...perm];
      return;
    }
    for (const j of candidates[i] ?? []) {
      if (used[j]) continue;
      used[j] = true;
      perm.push(j);
      yield* rec(i + 1);
      perm.pop();
      used[j] = false;
    }
  }
  yield* rec(0);
}

/**
 * True when `pred` matches `gold` under {@link CompareOptions}. Two empty results match whatever their columns
 * (Spider); otherwise the column counts must be equal.
 */
export function resultsMatch(gold: readonly Row[], pred: readonly Row[], opts: CompareOptions = {}): boolean {
  const mode = opts.mode ?? 'spider';
  const decimals = opts.floatDecimals === undefined ? 6 : opts.floatDecimals;
  const orderMatters = mode !== 'set' && (opts.orderMatters ?? false);
  if (gold.length === 0 && pred.length === 0) return true;
  const g = gold.map((r) => r.map((v) => normValue(v, decimals)));
  const p = pred.map((r) => r.map((v) => normValue(v, decimals)));
  const width = g[0]?.length ?? 0;
  if (p.some((r) => r.length !== width) || g.some((r) => r.length !== width)) return false;
  if (mode === 'set') {
    const gs = new Set(g.map(rowKey));
    const ps = new Set(p.map(rowKey));
    return gs.size === ps.size && [...gs].every((k) => ps.has(k));
  }
  if (g.length !== p.length) return false;
  const gKeys = g.map(rowKey);
  const same = (rows: string[][]) => {
    const keys = rows.map(rowKey);
    return orderMatters ? keys.every((k, i) => k === gKeys[i]) : multisetEqual(gKeys, keys);
  };
  if (mode === 'bag') return same(p);
  for (const perm of columnPermutations(g, p, width)) {
    if (same(p.map((r) => perm.map((j) => r[j] ?? '')))) return true;
  }
  return false;
}

/** Whether the gold SQL orders its rows (`ORDER BY` anywhere, case-insensitive, as Spider's evaluator checks). */
export function hasOrderBy(sql: string): boolean {
  return /\border\s+by\b/i.test(sql);
}
