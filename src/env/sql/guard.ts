import { scanSql, tokenText, type SqlToken } from './sql-lexer.js';

/**
 * PRAGMAs that only read schema information; any other PRAGMA, and any PRAGMA with `=`, is refused. The same names
 * are the only `pragma_…` table-valued functions a query may use (`SELECT * FROM pragma_table_info('t')`).
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

/** Longest statement {@link checkSql} accepts by default, in UTF-16 code units (longer ones are refused unread). */
export const MAX_SQL_CHARS = 100_000;

/** ASCII-only case change (`by` −32: upper, +32: lower): SQLite compares keywords and names case-insensitively in ASCII only. */
function asciiCase(s: string, by: -32 | 32): string {
  const [lo, hi] = by < 0 ? [0x61, 0x7a] : [0x41, 0x5a];
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= lo && c <= hi ? String.fromCharCode(c + by) : s[i];
  }
  return out;
}
const asciiUpper = (s: string): string => asciiCase(s, -32);
const asciiLower = (s: string): string => asciiCase(s, 32);

const keyword = (t: SqlToken | undefined): string | undefined => (t?.kind === 'word' && t.text.length <= 8 ? asciiUpper(t.text) : undefined);
const isName = (t: SqlToken | undefined): boolean => t !== undefined && (t.kind === 'word' || (t.kind === 'ident' && !t.unterminated));
const isPunct = (t: SqlToken | undefined, p: string): boolean => t?.kind === 'punct' && t.text === p;
const PRAGMA_REFUSAL = `only these PRAGMAs are allowed: ${[...READ_ONLY_PRAGMAS].join(', ')} (no assignments)`;

/** Whether `stmt` (tokens of one statement after `PRAGMA`) is `[schema.]name[(value)]` with `name` allow-listed. */
function isReadOnlyPragma(stmt: readonly SqlToken[]): boolean {
  let i = 0;
  if (isName(stmt[0]) && isPunct(stmt[1], '.')) i = 2;
  const name = stmt[i];
  if (!isName(name) || !READ_ONLY_PRAGMAS.has(asciiLower(name!.text))) return false;
  i++;
  if (i === stmt.length) return true;
  const value = stmt[i + 1];
  const valueOk = value !== undefined && !value.unterminated && (value.kind === 'word' || value.kind === 'string' || value.kind === 'ident');
  return isPunct(stmt[i], '(') && valueOk && isPunct(stmt[i + 2], ')') && i + 3 === stmt.length;
}

/** Options of {@link checkSql}. */
export interface CheckSqlOptions {
  /** Longest statement accepted, in UTF-16 code units. @default MAX_SQL_CHARS */
  readonly maxChars?: number;
}

/**
 * Checks a model-written statement before it reaches SQLite (some PRAGMAs take effect when SQLite *prepares* them, so
 * the query process's own read-only checks come too late for those). Returns the refusal reason, or `undefined` when
 * the statement may run. Refuses:
 * - a statement longer than `maxChars` (before looking at it), and empty input (whitespace, comments, `;` only);
 * - more than one statement;
 * - a statement (after any leading `;`, comments and `EXPLAIN [QUERY PLAN]`) that is `ATTACH`, `DETACH` (would
 *   open other files) or a PRAGMA other than a plain schema read from {@link READ_ONLY_PRAGMAS} (`PRAGMA x = y`
 *   always; so `;PRAGMA locking_mode=exclusive` is refused);
 * - any `pragma_…` table-valued function (as a word, quoted identifier or string) not named in {@link READ_ONLY_PRAGMAS}.
 *
 * Writes are refused by the query process (`sqlite3_stmt_readonly`); unlike PRAGMAs they have no effect before they
 * run. Other statements go to SQLite, so a typo gets SQLite's own syntax error. Runs in time linear in the input
 * (one tokenizer pass, no backtracking patterns), so it is safe on the trainer's thread for any input.
 */
export function checkSql(sql: string, opts: CheckSqlOptions = {}): string | undefined {
  const maxChars = opts.maxChars ?? MAX_SQL_CHARS;
  if (sql.length > maxChars) return `the query is too long (${sql.length} characters; at most ${maxChars})`;
  // One pass: keep the first statement's first HEAD tokens (enough to read its keyword or a whole allowed PRAGMA),
  // count its tokens, look at every name for pragma_ functions, stop at a second statement.
  const HEAD = 16;
  const head: SqlToken[] = [];
  let count = 0;
  let ended = false;
  let refusal: string | undefined;
  scanSql(sql, (kind, start, end, unterminated) => {
    if (kind === 'semicolon') {
      ended = count > 0;
      return true;
    }
    if (ended) {
      refusal = 'only one statement per query is allowed';
      return false;
    }
    count++;
    if (kind !== 'punct') {
      const from = kind === 'word' ? start : start + 1;
      if (end - from > 7 && asciiUpper(sql.slice(from, from + 7)) === 'PRAGMA_') {
        const text = tokenText(sql, kind, start, end, unterminated);
        if (!READ_ONLY_PRAGMAS.has(asciiLower(text.slice(7)))) {
          refusal = `the table-valued function ${text.slice(0, 64)} is not allowed (only pragma_${[...READ_ONLY_PRAGMAS].join(', pragma_')})`;
          return false;
        }
      }
    }
    if (head.length < HEAD) {
      const text = kind === 'word' || kind === 'punct' ? sql.slice(start, end) : tokenText(sql, kind, start, end, unterminated);
      head.push(unterminated ? { kind, text, start, unterminated } : { kind, text, start });
    }
    return true;
  });
  if (refusal !== undefined) return refusal;
  if (count === 0) return 'empty query';
  let i = 0;
  if (keyword(head[0]) === 'EXPLAIN') {
    i = 1;
    if (keyword(head[1]) === 'QUERY' && keyword(head[2]) === 'PLAN') i = 3;
  }
  const word = keyword(head[i]);
  if (word === 'ATTACH' || word === 'DETACH') return `${word} is not allowed: query the given database only`;
  if (word === 'PRAGMA') return count <= HEAD && isReadOnlyPragma(head.slice(i + 1)) ? undefined : PRAGMA_REFUSAL;
  return undefined;
}
