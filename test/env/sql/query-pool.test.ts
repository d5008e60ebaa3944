import { afterAll, describe, expect, it } from 'vitest';
import { sqlQueryPool, readSchema } from '../../../src/env/sql/index.js';
import { ConfigError, SqlDatabaseError } from '../../../src/errors/index.js';
import { DB_BYTES, DB_PATH, RUNAWAY_SQL } from './fixtures.js';

describe('sqlQueryPool (child-process better-sqlite3 workers)', () => {
  const pool = sqlQueryPool({ database: DB_BYTES, workers: 2, timeoutMs: 5_000 });
  afterAll(() => pool.close());

  it('runs a read query on a private read-only copy and returns columns and raw rows', async () => {
    const r = await pool.query({ sql: "SELECT name, capital FROM country WHERE name IN ('Finland', 'Peru') ORDER BY name" });
    expect(r).toMatchObject({ status: 'ok', columns: ['name', 'capital'], truncated: false });
    expect(r.rows).toEqual([
      ['Finland', 'Helsinki [Helsingfors]'],
      ['Peru', 'Lima'],
    ]);
  });

  it('keeps duplicate column names and caps rows at maxRows', async () => {
    const dup = await pool.query({ sql: 'SELECT 1 AS id, 2 AS id' });
    expect(dup.columns).toEqual(['id', 'id']);
    expect(dup.rows).toEqual([[1, 2]]);
    const capped = await pool.query({ sql: 'SELECT name FROM country', maxRows: 5 });
    expect(capped.rows).toHaveLength(5);
    expect(capped.truncated).toBe(true);
  });

  it('refuses writes, multiple statements, ATTACH and PRAGMA writes; nothing persists', async () => {
    // Hazard: one episode's writes leaking into another episode's database.
    const refused = [
      "DELETE FROM country WHERE name = 'Peru'",
      'CREATE TEMP TABLE t(a)',
      'SELECT 1; DELETE FROM country',
      "ATTACH '/tmp/x.db' AS x",
      'PRAGMA query_only = 0',
      'BEGIN',
    ];
    for (const sql of refused) expect((await pool.query({ sql })).status, sql).toBe('refused');
    const r = await pool.query({ sql: "SELECT COUNT(*) FROM country WHERE name = 'Peru'" });
    expect(r.rows).toEqual([[1]]);
  });

  it('reports SQLite errors as values', async () => {
    const r = await pool.query({ sql: 'SELECT nope FROM country' });
    expect(r).toMatchObject({ status: 'error', error: 'no such column: nope' });
  });

  it('kills a runaway query at its deadline, then keeps serving', async () => {
    // Hazard: better-sqlite3 cannot be interrupted; without a process kill the query would spin forever.
    const t0 = performance.now();
    const r = await pool.query({ sql: RUNAWAY_SQL, timeoutMs: 300 });
    const wallMs = performance.now() - t0;
    expect(r.status).toBe('timeout');
    expect(wallMs).toBeGreaterThanOrEqual(290);
    expect(wallMs).toBeLessThan(300 + 3_000);
    const after = await pool.query({ sql: 'SELECT 2' });
    expect(after.rows).toEqual([[2]]);
    await new Promise((res) => setTimeout(res, 200));
    const s = pool.stats();
    expect(s.timeouts).toBe(1);
    expect(s.killLatenciesMs).toHaveLength(1);
    // SIGKILL → process gone: measured ~15 ms on 2 cores; generous bound for loaded CI.
    expect(s.killLatenciesMs[0]).toBeLessThan(3_000);
  });

  it('runs queries concurrently across workers while one runs away', async () => {
    const slow = pool.query({ sql: RUNAWAY_SQL, timeoutMs: 400 });
    const fast = await pool.query({ sql: 'SELECT COUNT(*) FROM country_language' });
    expect(fast.status).toBe('ok');
    expect((await slow).status).toBe('timeout');
  });

  it('rejects with the abort reason and kills the query when the signal aborts', async () => {
    const ac = new AbortController();
    const p = pool.query({ sql: RUNAWAY_SQL, timeoutMs: 10_000 }, ac.signal);
    setTimeout(() => ac.abort(new Error('cancelled')), 100);
    await expect(p).rejects.toThrow('cancelled');
    expect((await pool.query({ sql: 'SELECT 3' })).rows).toEqual([[3]]);
  });

  it('caps the size of a result so a giant value never crosses the process boundary', async () => {
    const small = sqlQueryPool({ database: DB_BYTES, workers: 1, maxResultBytes: 4_000 });
    try {
      expect(await small.query({ sql: 'SELECT randomblob(1000000)' })).toMatchObject({ status: 'error', error: expect.stringMatching(/result too large/) });
      const cut = await small.query({ sql: 'SELECT name, capital FROM country' });
      expect(cut.status).toBe('ok');
      expect(cut.truncated).toBe(true);
      expect(cut.rows.length).toBeGreaterThan(10);
      expect(cut.rows.length).toBeLessThan(200);
    } finally {
      await small.close();
    }
  });

  it('drops a queued query whose signal aborts before a process takes it', async () => {
    const one = sqlQueryPool({ database: DB_BYTES, workers: 1 });
    try {
      const busy = one.query({ sql: RUNAWAY_SQL, timeoutMs: 1_500 });
      const ac = new AbortController();
      const queued = one.query({ sql: 'SELECT 1' }, ac.signal);
      const t0 = performance.now();
      setTimeout(() => ac.abort(new Error('gave up')), 50);
      await expect(queued).rejects.toThrow('gave up');
      expect(performance.now() - t0).toBeLessThan(3_000);
      expect((await busy).status).toBe('timeout');
    } finally {
      await one.close();
    }
  });

  it('opens a database file by path, read-only', async () => {
    const byPath = sqlQueryPool({ database: DB_PATH, workers: 1 });
    try {
      expect((await byPath.query({ sql: 'SELECT COUNT(*) > 200 FROM country' })).rows).toEqual([[1]]);
      expect((await byPath.query({ sql: "UPDATE country SET capital = 'x'" })).status).toBe('refused');
    } finally {
      await byPath.close();
    }
  });

  it('fails with SqlDatabaseError for a database that cannot be opened, ConfigError for bad options', async () => {
    const broken = sqlQueryPool({ database: new Uint8Array([1, 2, 3, 4]), workers: 1 });
    try {
      await expect(broken.query({ sql: 'SELECT 1' })).rejects.toBeInstanceOf(SqlDatabaseError);
    } finally {
      await broken.close();
    }
    expect(() => sqlQueryPool({ database: DB_BYTES, workers: 0, timeoutMs: -1 })).toThrow(ConfigError);
    expect(() => readSchema('/nonexistent.sqlite')).toThrow(SqlDatabaseError);
  });

  it('rejects after close()', async () => {
    const p = sqlQueryPool({ database: DB_BYTES, workers: 1 });
    await p.query({ sql: 'SELECT 1' });
    await p.close();
    await expect(p.query({ sql: 'SELECT 1' })).rejects.toBeInstanceOf(SqlDatabaseError);
  });
});
