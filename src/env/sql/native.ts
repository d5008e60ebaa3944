import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { SqlDatabaseError } from '../../errors/index.js';
import type { SqlSource } from './types.js';

const require = createRequire(import.meta.url);

/**
 * Resolved path of the optional `better-sqlite3` dependency (its JS entry; the native addon loads beside it).
 * @throws SqlDatabaseError when it is not installed.
 * @internal
 */
export function resolveSqliteModule(): string {
  try {
    return require.resolve('better-sqlite3');
  } catch (err) {
    throw new SqlDatabaseError('better-sqlite3 is not installed (npm install better-sqlite3@12)', { cause: err });
  }
}

/**
 * Opens `source` read-only in this process (bytes → private in-memory copy; path → the file, which must exist).
 * For short trusted reads only (schema, sanity checks): model queries run in query processes.
 * @throws SqlDatabaseError when better-sqlite3 is missing or unbuilt, or the source is not a SQLite database.
 * @internal
 */
export function openReadOnly(source: SqlSource): BetterSqlite3.Database {
  let Database: typeof BetterSqlite3;
  try {
    Database = require(resolveSqliteModule()) as typeof BetterSqlite3;
  } catch (err) {
    if (err instanceof SqlDatabaseError) throw err;
    throw new SqlDatabaseError('better-sqlite3 failed to load; rebuild it with `npm rebuild better-sqlite3`', { cause: err });
  }
  try {
    const db =
      typeof source === 'string'
        ? new Database(source, { readonly: true, fileMustExist: true })
        : new Database(Buffer.from(source.buffer, source.byteOffset, source.byteLength), { readonly: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (err) {
    const what = typeof source === 'string' ? source : `${source.byteLength}-byte buffer`;
    throw new SqlDatabaseError(`cannot open SQLite database ${what}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The schema of a database as its `CREATE TABLE` / `CREATE VIEW` statements, in creation order, `;`-terminated,
 * one per paragraph (internal `sqlite_*` tables excluded). This is what the SQL agent's prompt shows.
 * @throws SqlDatabaseError when the database cannot be opened.
 */
export function readSchema(source: SqlSource): string {
  const db = openReadOnly(source);
  try {
    const rows = db
      .prepare("SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND sql IS NOT NULL ORDER BY rowid")
      .pluck()
      .all() as string[];
    return rows.map((s) => s.trim() + ';').join('\n\n');
  } finally {
    db.close();
  }
}
