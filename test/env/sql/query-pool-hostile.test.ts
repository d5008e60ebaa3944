import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlQueryPool, SQL_RUNTIME_ALLOWANCE_BYTES } from '../../../src/env/sql/index.js';
import { DB_BYTES, DB_PATH, RUNAWAY_SQL } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'agentrl-sql-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlQueryPool under hostile queries (issue 14)', () => {
  it('nothing an episode does persists: hidden PRAGMAs are refused before SQLite prepares them (§2)', async () => {
    // Hazard: `;PRAGMA locking_mode=exclusive` passed the guard, and the query process then held the database file
    // locked for every later episode: outside writers saw "database is locked".
    const file = join(dir, 'locking.sqlite');
    copyFileSync(DB_PATH, file);
    const pool = sqlQueryPool({ database: file, workers: 1 });
    try {
      for (const sql of [
        ';PRAGMA locking_mode=exclusive',
        'EXPLAIN PRAGMA locking_mode=exclusive',
        '/**/;;PRAGMA main.locking_mode = EXCLUSIVE',
        ';PRAGMA journal_mode=WAL',
        ';PRAGMA query_only=0',
      ]) {
        expect((await pool.query({ sql })).status, sql).toBe('refused');
      }
      // The same process then reads (which would take the exclusive lock had the PRAGMA applied) …
      expect((await pool.query({ sql: 'SELECT COUNT(*) FROM country' })).rows).toEqual([[248]]);
      // … and an outside writer still gets in.
      const writer = new Database(file, { timeout: 0 });
      try {
        expect(() => writer.exec('CREATE TABLE outside_write(a)')).not.toThrow();
      } finally {
        writer.close();
      }
      expect(pool.stats().spawned).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('enforces the memory limit at the OS level and reports `memory`, then keeps serving (§3)', async () => {
    // Hazard: SQLite's heap limit is not enforced by the bundled build: with a 64 MiB limit this query succeeded and
    // its process reached 1.2 GB.
    const limit = 64 * 1024 * 1024;
    const pool = sqlQueryPool({ database: DB_BYTES, workers: 1, memoryLimitBytes: limit });
    try {
      const within = await pool.query({ sql: 'SELECT length(hex(zeroblob(10000000)))' });
      expect(within).toMatchObject({ status: 'ok', rows: [[20_000_000]] });
      if (process.platform === 'linux') {
        expect(pool.stats().dataLimitBytes).toBe(limit + SQL_RUNTIME_ALLOWANCE_BYTES + 2 * DB_BYTES.byteLength);
        const big = await pool.query({ sql: 'SELECT length(hex(zeroblob(200000000)))' });
        expect(big).toMatchObject({ status: 'memory', error: expect.stringMatching(/out of memory/) });
        const huge = await pool.query({ sql: 'SELECT hex(zeroblob(60000000))' });
        expect(huge.status).toBe('memory');
        expect(pool.stats().outOfMemory).toBe(2);
        expect((await pool.query({ sql: 'SELECT 7' })).rows).toEqual([[7]]);
      }
    } finally {
      await pool.close();
    }
    // 0 turns the OS limit off.
    const unlimited = sqlQueryPool({ database: DB_BYTES, workers: 1, memoryLimitBytes: 0 });
    try {
      expect((await unlimited.query({ sql: 'SELECT 1' })).status).toBe('ok');
      expect(unlimited.stats().dataLimitBytes).toBeNull();
    } finally {
      await unlimited.close();
    }
  });

  it('refuses a query over maxSqlChars without running it', async () => {
    const pool = sqlQueryPool({ database: DB_BYTES, workers: 1, maxSqlChars: 50 });
    try {
      expect(await pool.query({ sql: 'SELECT 1 ' + '-- padding '.repeat(10) })).toMatchObject({ status: 'refused', error: expect.stringMatching(/too long/) });
      expect(pool.stats().spawned).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('a long run of calls on one shared signal leaves at most one abort listener on it (issue 21 §3)', async () => {
    // Hazard: the trainer hands ONE signal to every rollout; one listener per queued or running query put 64 on it
    // (MaxListenersExceededWarning in `npm run sql-agent`), and any path that forgot to remove its listener leaked.
    const pool = sqlQueryPool({ database: DB_BYTES, workers: 2 });
    const ac = new AbortController();
    const counts: number[] = [];
    try {
      for (let round = 0; round < 10; round++) {
        const batch = Array.from({ length: 30 }, (_, i) => pool.query({ sql: `SELECT ${i}` }, ac.signal));
        batch.push(pool.query({ sql: 'SELECT nope' }, ac.signal)); // an error
        batch.push(pool.query({ sql: ';PRAGMA x=1' }, ac.signal)); // a refusal
        batch.push(pool.query({ sql: RUNAWAY_SQL, timeoutMs: 50 }, ac.signal)); // a timeout (process replaced)
        counts.push(getEventListeners(ac.signal, 'abort').length); // while 33 are queued or running
        await Promise.all(batch);
        counts.push(getEventListeners(ac.signal, 'abort').length);
      }
      expect(Math.max(...counts.filter((_, i) => i % 2 === 0))).toBe(1);
      expect(counts.filter((_, i) => i % 2 === 1)).toEqual(new Array(10).fill(0));
      // Aborting still reaches every pending query.
      const pending = [
        pool.query({ sql: RUNAWAY_SQL, timeoutMs: 10_000 }, ac.signal),
        pool.query({ sql: 'SELECT 1' }, ac.signal),
        pool.query({ sql: 'SELECT 2' }, ac.signal),
      ];
      ac.abort(new Error('stop'));
      for (const p of pending) await expect(p).rejects.toThrow('stop');
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    } finally {
      await pool.close();
    }
  });
});
