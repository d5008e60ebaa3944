/**
 * A small SQLite tokenizer for the SQL guard: one left-to-right pass, no regular expressions, so its time is linear in
 * the input whatever the input (runs of whitespace, comments, quotes, nesting). It follows SQLite's lexical rules
 * (tokenize.c) where they decide what a statement is: whitespace is exactly space, tab, LF, FF and CR; `-- …` runs to
 * the end of the line and an unclosed `/* …` to the end of the input; strings `'…'` and quoted identifiers `"…"`,
 * `` `…` `` (doubled quote = escape) and `[…]` hide `;`; identifier characters are ASCII letters, digits, `_`, `$` and
 * every non-ASCII character. Anything else is a one-character `punct` token.
 * @internal
 */

/** Kinds of {@link SqlToken}. */
export type SqlTokenKind = 'word' | 'string' | 'ident' | 'semicolon' | 'punct';

/** One token; `text` is the word as written, or the unquoted content of a string or quoted identifier. */
export interface SqlToken {
  readonly kind: SqlTokenKind;
  readonly text: string;
  /** UTF-16 index of the token's first character in the input. */
  readonly start: number;
  /** True for a string or quoted identifier whose closing quote is missing (SQLite rejects those). */
  readonly unterminated?: boolean;
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0c, 0x0d]);

/** Whether the UTF-16 code unit `c` is an identifier character for SQLite (`[A-Za-z0-9_$]` or non-ASCII). */
function isIdChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24 || c >= 0x80;
}

/** Index just after the quoted run that opens at `i` with `quote` (a doubled quote is an escape), or -1 if unclosed. */
function quotedEnd(sql: string, i: number, quote: string): number {
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(quote, j);
    if (k === -1) return -1;
    if (sql[k + 1] === quote) j = k + 2;
    else return k + 1;
  }
}

/**
 * Calls `visit(kind, start, end, unterminated)` for each token of `sql` in order (comments and whitespace skipped),
 * until `visit` returns `false`. `start`/`end` delimit the token as written, quotes included. Linear time and no
 * allocation per token: every character is looked at a bounded number of times (`indexOf` scans resume where the
 * previous one stopped).
 */
export function scanSql(sql: string, visit: (kind: SqlTokenKind, start: number, end: number, unterminated: boolean) => boolean): void {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (SPACE.has(c)) {
      i++;
      continue;
    }
    let kind: SqlTokenKind;
    let end: number;
    let open = false;
    if (c === 0x2d && sql.charCodeAt(i + 1) === 0x2d) {
      const nl = sql.indexOf('\n', i + 2);
      i = nl === -1 ? n : nl + 1;
      continue;
    } else if (c === 0x2f && sql.charCodeAt(i + 1) === 0x2a) {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? n : close + 2;
      continue;
    } else if (c === 0x27 || c === 0x22 || c === 0x60) {
      kind = c === 0x27 ? 'string' : 'ident';
      end = quotedEnd(sql, i, sql[i] as string);
    } else if (c === 0x5b) {
      kind = 'ident';
      end = sql.indexOf(']', i + 1);
      if (end !== -1) end++;
    } else if (isIdChar(c)) {
      kind = 'word';
      end = i + 1;
      while (end < n && isIdChar(sql.charCodeAt(end))) end++;
    } else {
      kind = c === 0x3b ? 'semicolon' : 'punct';
      end = i + 1;
    }
    if (end === -1) {
      end = n;
      open = true;
    }
    if (!visit(kind, i, end, open)) return;
    i = end;
  }
}

/** The text of a token found by {@link scanSql}: a word as written, or the unquoted content of a quoted token. */
export function tokenText(sql: string, kind: SqlTokenKind, start: number, end: number, unterminated: boolean): string {
  if (kind === 'word' || kind === 'punct' || kind === 'semicolon') return sql.slice(start, end);
  const q = sql[start] as string;
  const inner = sql.slice(start + 1, unterminated ? end : end - 1);
  return q === '[' ? inner : inner.split(q + q).join(q);
}
