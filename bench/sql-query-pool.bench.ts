/**
 * SQL query pool figures: cold start, warm query round trip, and how fast a runaway query is stopped
 * (result after the deadline, SIGKILL → process gone). Uses the sql-agent example database.
 *
 *   node --import tsx bench/sql-query-pool.bench.ts [--kills 10] [--deadline-ms 300]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { sqlQueryPool } from '../src/env/sql/index.js';

const { values } = parseArgs({ options: { kills: { type: 'string', default: '10' }, 'deadline-ms': { type: 'string', default: '300' } } });
const kills = Number(values.kills);
const deadlineMs = Number(values['deadline-ms']);
const db = readFileSync(fileURLToPath(new URL('../examples/sql-agent/data/countries.sqlite', import.meta.url)));
const RUNAWAY = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const med = (a: readonly number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const fmt = (a: readonly number[]) => `median ${med(a).toFixed(1)} ms, max ${Math.max(...a).toFixed(1)} ms (n=${a.length})`;

const pool = sqlQueryPool({ database: db, workers: 2 });
let t0 = performance.now();
await pool.query({ sql: 'SELECT 1' });
console.log(`cold first query (spawn + open + query): ${(performance.now() - t0).toFixed(1)} ms`);

const warm: number[] = [];
for (let i = 0; i < 50; i++) {
  t0 = performance.now();
  await pool.query({ sql: "SELECT name, population FROM country WHERE continent = 'Europe' ORDER BY population DESC" });
  warm.push(performance.now() - t0);
}
console.log(`warm query round trip: ${fmt(warm)}`);

const late: number[] = [];
for (let i = 0; i < kills; i++) {
  t0 = performance.now();
  const r = await pool.query({ sql: RUNAWAY, timeoutMs: deadlineMs });
  late.push(performance.now() - t0 - deadlineMs);
  if (r.status !== 'timeout') throw new Error(`expected a timeout, got ${r.status}`);
  await sleep(600); // let the replacement process start, so each sample measures the kill alone
}
const s = pool.stats();
console.log(`runaway query, result after its ${deadlineMs} ms deadline: ${fmt(late)}`);
console.log(`SIGKILL -> process exit: ${fmt(s.killLatenciesMs)}`);
console.log(`processes spawned: ${s.spawned}, timeouts: ${s.timeouts}`);
await pool.close();
