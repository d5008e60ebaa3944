/**
 * PRAGMAs that only read schema information; any other PRAGMA, and any PRAGMA with `=`, is refused.
 * (The connection is read-only as well; this closes the gaps that `sqlite3_stmt_readonly` leaves open.)
 */
export const READ_ONLY_PRAGMAS: ReadonlySet<string> = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_list',
  'index_info',
  'index_xinfo',
  'foreign_key_list',
]);

/** Removes leading whitespace and SQL comments (`-- …` and `/* … *\/`). */
function skipLeadingTrivia(sql: string): string {
  let s = sql;
  for (;;) {
    const t = s.replace(/^\s+/, '');
    if (t.startsWith('--')) {
      const nl = t.indexOf('\n');
      s = nl === -1 ? '' : t.slice(nl + 1);
    } else if (t.startsWith('/*')) {
      const end = t.indexOf('*/', 2);
      s = end === -1 ? '' : t.slice(end + 2);
    } else return t;
  }
}

/**
 * Checks a model-written statement before it reaches SQLite. Returns the refusal reason, or `undefined` when the
 * statement may run. Refuses: empty input, `ATTACH`/`DETACH` (would open other files), and PRAGMAs other than the plain
 * schema reads in {@link READ_ONLY_PRAGMAS} (`PRAGMA x = y` always). Writes and multiple statements are refused later,
 * by the query process (`sqlite3_stmt_readonly`, one statement per `prepare`).
 */
export function checkSql(sql: string): string | undefined {
  const body = skipLeadingTrivia(sql);
  if (body === '' || /^;*\s*$/.test(body)) return 'empty query';
  const word = /^[A-Za-z_]+/.exec(body)?.[0]?.toUpperCase();
  if (word === 'ATTACH' || word === 'DETACH') return `${word} is not allowed: query the given database only`;
  if (word === 'PRAGMA') {
    const m = /^PRAGMA\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*(\(\s*[^()=;]*\))?\s*;?\s*$/i.exec(body);
    if (!m || !READ_ONLY_PRAGMAS.has((m[1] ?? '').toLowerCase())) {
      return `only these PRAGMAs are allowed: ${[...READ_ONLY_PRAGMAS].join(', ')} (no assignments)`;
    }
  }
  return undefined;
}
