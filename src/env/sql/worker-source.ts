/**
 * Source of one query process (CommonJS, run with `node -e`; no file to ship or resolve at run time).
 * Protocol over the IPC channel (advanced serialization):
 * - parent → `{ type: 'init', source, memoryLimitBytes }`; child → `{ type: 'ready', error?, dataLimitBytes }`
 *   (`dataLimitBytes`: its own soft `RLIMIT_DATA` from `/proc/self/limits`, `null` when unlimited or unknown).
 * - parent → `{ type: 'query', id, sql, maxRows, maxBytes }`; child → `{ type: 'result', id, status, columns, rows, truncated, error?, wallMs }`.
 *   Rows stop at `maxRows` or when their approximate size passes `maxBytes` (`truncated`); a first row alone over
 *   `maxBytes` is an `error`, so a giant value never crosses the IPC channel. A failed allocation (SQLite's
 *   `SQLITE_NOMEM`, or V8 refusing a huge string or buffer) is status `memory`.
 * The database is opened read-only (bytes → private in-memory copy; path → `readonly`, `fileMustExist`); only
 * statements that return rows and that SQLite reports read-only run. The child exits when the parent goes away.
 * `AGENTRL_SQLITE_MODULE` holds the resolved path of `better-sqlite3`.
 * @internal
 */
export const QUERY_WORKER_SOURCE = String.raw`'use strict';
const Database = require(process.env.AGENTRL_SQLITE_MODULE);
let db;
const message = (e) => String((e && e.message) || e);
const dataLimit = () => {
  try {
    const line = require('fs').readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max data size'));
    const soft = line && line.slice('Max data size'.length).trim().split(' ')[0];
    return soft && soft !== 'unlimited' ? Number(soft) : null;
  } catch {
    return null;
  }
};
const outOfMemory = (e) =>
  (e && e.code === 'SQLITE_NOMEM') || (e instanceof RangeError && /allocation failed|invalid string length|invalid array length/i.test(message(e)));
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  if (m.type === 'init') {
    try {
      if (typeof m.source === 'string') db = new Database(m.source, { readonly: true, fileMustExist: true });
      else db = new Database(Buffer.from(m.source.buffer, m.source.byteOffset, m.source.byteLength), { readonly: true });
      if (m.memoryLimitBytes > 0) db.pragma('hard_heap_limit = ' + Math.floor(m.memoryLimitBytes));
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      process.send({ type: 'ready', dataLimitBytes: dataLimit() });
    } catch (e) {
      process.send({ type: 'ready', error: message(e) });
    }
    return;
  }
  if (m.type !== 'query') return;
  const t0 = performance.now();
  let out;
  try {
    const stmt = db.prepare(m.sql);
    if (!stmt.reader || !stmt.readonly) {
      out = { status: 'refused', error: 'only read-only queries that return rows are allowed (SELECT / WITH … SELECT)' };
    } else {
      stmt.raw(true);
      const columns = stmt.columns().map((c) => c.name);
      const rows = [];
      let truncated = false;
      let bytes = 0;
      let tooBig = false;
      for (const row of stmt.iterate()) {
        if (rows.length >= m.maxRows) { truncated = true; break; }
        for (const v of row) bytes += typeof v === 'string' ? v.length * 2 : v && typeof v.byteLength === 'number' ? v.byteLength : 8;
        if (bytes > m.maxBytes) { if (rows.length === 0) tooBig = true; truncated = true; break; }
        rows.push(row);
      }
      out = tooBig
        ? { status: 'error', error: 'result too large: one row exceeds ' + m.maxBytes + ' bytes' }
        : { status: 'ok', columns, rows, truncated };
    }
  } catch (e) {
    const msg = message(e);
    out = /more than one statement/.test(msg)
      ? { status: 'refused', error: 'only one statement per query is allowed' }
      : outOfMemory(e)
        ? { status: 'memory', error: 'the query ran out of memory (' + msg + ')' }
        : { status: 'error', error: msg };
  }
  out.type = 'result';
  out.id = m.id;
  out.wallMs = performance.now() - t0;
  process.send(out);
});
`;
