import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSql, MAX_SQL_CHARS } from '../../../src/env/sql/index.js';
import { fastestMs, LINEAR_BOUND_MS } from '../../helpers/timing.js';

describe('checkSql', () => {
  it('lets reads through, comments and table-info pragmas included', () => {
    for (const sql of [
      'SELECT 1',
      '  -- why\n/* c */ select * from country;',
      'WITH x AS (SELECT 1) SELECT * FROM x',
      'PRAGMA table_info(country)',
      'pragma main.index_list(country);',
      "PRAGMA table_info('country');  -- done",
      "SELECT * FROM pragma_table_info('country')",
      'EXPLAIN QUERY PLAN SELECT * FROM country',
      'SELECT \';PRAGMA locking_mode=exclusive\', "a;b", [c;d], `e;f` FROM country',
      'SELEC name FROM country', // a typo reaches SQLite and gets its own syntax error
    ]) {
      expect(checkSql(sql), sql).toBeUndefined();
    }
  });

  it('refuses ATTACH/DETACH, PRAGMA assignments and other PRAGMAs, and empty input', () => {
    // Hazard: sqlite3_stmt_readonly() is true for ATTACH and for `PRAGMA query_only = 0`, so the read-only check alone misses them.
    for (const sql of [
      "ATTACH 'other.db' AS o",
      '/* x */ detach o',
      'PRAGMA query_only = 0',
      'PRAGMA hard_heap_limit=1',
      'PRAGMA writable_schema',
      'pragma table_info = 1',
      '',
      ' ; ',
      '-- only a comment',
      ';;\n;',
    ]) {
      expect(checkSql(sql), sql).toBeTypeOf('string');
    }
  });

  it('refuses PRAGMAs however they are hidden (issue 14 §2: `;PRAGMA locking_mode=exclusive` passed)', () => {
    // Hazard: SQLite applies many PRAGMAs while *preparing* them, so the query process's read-only check comes too late.
    for (const sql of [
      ';PRAGMA locking_mode=exclusive',
      ';;  ;pragma LOCKING_MODE = EXCLUSIVE',
      '/* c */;-- x\nPRAGMA journal_mode=WAL',
      '\t\f\r\nPRAGMA case_sensitive_like=1',
      'EXPLAIN PRAGMA locking_mode=exclusive',
      'explain query plan pragma query_only=0',
      'PRAGMA main.locking_mode=exclusive',
      'PRAGMA "locking_mode"=exclusive',
      'PRAGMA [cache_size](-1)',
      'PRAGMA table_info(country) x',
      'PRAGMA table_info((country))',
      "PRAGMA table_info('country'",
      'PRAGMA table_info(country); PRAGMA locking_mode=exclusive',
      'SELECT 1; PRAGMA locking_mode=exclusive',
      'SELECT 1;;/**/SELECT 2',
      'SELECT * FROM pragma_optimize',
      'SELECT * FROM "pragma_optimize"(\'x\')',
      'SELECT * FROM main.[PRAGMA_INTEGRITY_CHECK]',
      "SELECT * FROM 'pragma_quick_check'",
    ]) {
      expect(checkSql(sql), sql).toBeTypeOf('string');
    }
  });

  it('refuses a statement longer than the cap before reading it; the cap is an option', () => {
    expect(checkSql('SELECT 1' + ' '.repeat(MAX_SQL_CHARS))).toMatch(/too long/);
    expect(checkSql('SELECT 1', { maxChars: 5 })).toMatch(/too long/);
    expect(checkSql('SELECT 1' + ' '.repeat(MAX_SQL_CHARS - 8))).toBeUndefined();
  });

  it('runs in linear time: the issue input and pathological inputs of the allowed size take a few ms (issue 14 §1)', () => {
    // Hazard: the old PRAGMA pattern took 6–9 s on `PRAGMA table_info` + 3,000 spaces + `x`, blocking the trainer.
    // A linear scan of 100 k characters takes ~1 ms; anything super-linear takes seconds. The bound is generous.
    const fill = (prefix: string, unit: string, tail: string) =>
      prefix + unit.repeat(Math.floor((MAX_SQL_CHARS - prefix.length - tail.length) / unit.length)) + tail;
    const inputs = [
      'PRAGMA table_info' + ' '.repeat(3000) + 'x',
      fill('PRAGMA table_info', ' ', 'x'),
      fill('PRAGMA table_info(', ' ', 'x'),
      fill('PRAGMA main', ' . ', 'x'),
      ...[
        ' ',
        '\t',
        '\n',
        '\r\n',
        '\f',
        '\u00a0',
        '/**/',
        '/*',
        '--\n',
        '--',
        ';',
        '; ',
        "''",
        "'",
        '""',
        '[',
        '(',
        '((',
        ')',
        'a ',
        'pragma_',
        'PRAGMA ',
        'EXPLAIN ',
        'SELECT ',
        '`',
      ].flatMap((u) => [fill('', u, 'x'), fill('PRAGMA table_info', u, 'x'), fill('SELECT ', u, ';PRAGMA x=1')]),
    ];
    for (const sql of inputs) {
      expect(sql.length).toBeLessThanOrEqual(MAX_SQL_CHARS);
      expect(
        fastestMs(() => checkSql(sql)),
        JSON.stringify(sql.slice(0, 40)),
      ).toBeLessThan(LINEAR_BOUND_MS);
    }
  });

  it('property: any two repeated fragments of the allowed size are checked in a few ms', () => {
    const units = [' ', '\n', '\t', ';', '/*', '*/', '--', "'", '"', '`', '[', ']', '(', ')', '=', '.', 'PRAGMA', 'pragma_x', 'table_info', 'EXPLAIN', 'x'];
    fc.assert(
      fc.property(fc.constantFrom(...units), fc.constantFrom(...units), fc.constantFrom('', 'x', ';', ')'), (a, b, tail) => {
        const half = Math.floor((MAX_SQL_CHARS - 1) / 2);
        const sql = a.repeat(Math.floor(half / a.length)) + b.repeat(Math.floor(half / b.length)) + tail;
        return fastestMs(() => checkSql(sql)) < LINEAR_BOUND_MS;
      }),
      { numRuns: 40 },
    );
  });

  it('property: a statement that passes the guard changes no connection setting, even when SQLite prepares and runs it', () => {
    // Hazard: a PRAGMA that slips through changes the query process's connection for every later episode.
    // Oracle: a real SQLite connection, its settings read before and after preparing (and running) what passed.
    const settings = [
      'locking_mode',
      'journal_mode',
      'query_only',
      'cache_size',
      'foreign_keys',
      'recursive_triggers',
      'reverse_unordered_selects',
      'synchronous',
      'temp_store',
      'busy_timeout',
      'soft_heap_limit',
      'hard_heap_limit',
      'max_page_count',
      'threads',
      'trusted_schema',
      'writable_schema',
      'automatic_index',
      'cache_spill',
      'cell_size_check',
      'legacy_alter_table',
      'ignore_check_constraints',
      'analysis_limit',
      'journal_size_limit',
      'secure_delete',
      'application_id',
      'user_version',
    ];
    const snapshot = (db: Database.Database) => JSON.stringify([settings.map((p) => db.pragma(p)), db.prepare("SELECT 'a' LIKE 'A'").pluck().get()]);
    const trivia = fc.array(fc.constantFrom(' ', ';', '\n', '/* c */', '-- c\n', 'EXPLAIN ', 'EXPLAIN QUERY PLAN '), { maxLength: 4 });
    const names = [...settings, 'case_sensitive_like', 'table_info', '"locking_mode"', '[query_only]', '`cache_size`'];
    const pragma = fc
      .tuple(
        trivia,
        fc.constantFrom('PRAGMA ', 'pragma ', 'PrAgMa\t'),
        fc.constantFrom('', 'main.', 'temp.', '"main" . '),
        fc.constantFrom(...names),
        fc.constantFrom('', '=exclusive', ' = 1', '=0', '(1)', '(exclusive)', "('country')", '=WAL', '=-1', '=100', ' = OFF'),
        fc.constantFrom('', ';', ' -- x', '; SELECT 1'),
      )
      .map((parts) => parts.flat().join(''));
    const fn = fc
      .tuple(
        trivia,
        fc.constantFrom('SELECT * FROM ', 'select 1 from '),
        fc.constantFrom('', 'main.'),
        fc.constantFrom(...names.map((n) => `pragma_${n}`), '"pragma_optimize"', "'pragma_locking_mode'"),
        fc.constantFrom('', '(1)', "('exclusive')", "('country')", '(0, 1)'),
      )
      .map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(fc.oneof(pragma, fn), (sql) => {
        if (checkSql(sql) !== undefined) return true;
        const db = new Database(':memory:');
        try {
          db.exec('CREATE TABLE country(name TEXT, capital TEXT)');
          const before = snapshot(db);
          try {
            const stmt = db.prepare(sql);
            if (stmt.reader && stmt.readonly) stmt.all();
          } catch {
            // SQLite errors are fine; only changed settings are not
          }
          return snapshot(db) === before;
        } finally {
          db.close();
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
