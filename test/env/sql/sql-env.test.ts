import { afterAll, describe, expect, it } from 'vitest';
import { sqlAgent, EXECUTE_SQL_TOOL } from '../../../src/env/sql/index.js';
import { ConfigError, SqlDatabaseError } from '../../../src/errors/index.js';
import type { StepOutcome } from '../../../src/env/types.js';
import { countTokens, makeCtx, toolCall } from '../search/make-ctx.js';
import { DB_BYTES, RUNAWAY_SQL } from './fixtures.js';

function observation(o: StepOutcome): string {
  if (o.done) throw new Error('expected an observation, got done');
  return o.observation.map((m) => m.content).join('\n');
}

const example = { id: 'sql-1', question: 'What is the capital of Peru?', answer: "SELECT capital FROM country WHERE name = 'Peru'" };

describe('sqlAgent environment (real SQLite database)', () => {
  const env = sqlAgent({ database: DB_BYTES, maxTurns: 4, rowLimit: 5, timeoutMs: 500 });
  afterAll(() => env.close?.());

  it('offers execute_sql and shows the schema with the question', () => {
    expect(env.tools).toEqual([EXECUTE_SQL_TOOL]);
    const msgs = env.initialMessages(example);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1]?.content).toMatch(/CREATE TABLE country \(/);
    expect(msgs[1]?.content).toMatch(/CREATE TABLE country_language/);
    expect(msgs[1]?.content).toMatch(/Question: What is the capital of Peru\?$/);
  });

  it('returns a compact table and a turns-left reminder for a good query', async () => {
    const out = await env.step(toolCall('execute_sql', { sql: "SELECT name, capital FROM country WHERE name = 'Peru'" }, 'c1'), makeCtx({ example }));
    expect(out.done === false && out.observation[0]).toMatchObject({ role: 'tool', name: 'execute_sql', toolCallId: 'c1' });
    expect(observation(out)).toBe('name | capital\nPeru | Lima\n(1 row)\n(3 turns left)');
    expect(out.done === false && out.exec?.status).toBe('ok');
  });

  it('caps rows at rowLimit and fits the tool-response budget', async () => {
    const many = observation(await env.step(toolCall('execute_sql', { sql: 'SELECT name FROM country' }), makeCtx({ example })));
    expect(many).toMatch(/showing the first 5 rows; the query returned more/);
    const tight = observation(await env.step(toolCall('execute_sql', { sql: 'SELECT * FROM country' }), makeCtx({ example, maxToolResponseTokens: 60 })));
    expect(countTokens(tight)).toBeLessThanOrEqual(60);
    expect(tight).toMatch(/turns left\)$/);
  });

  it('returns SQL errors and refusals as observations', async () => {
    const err = await env.step(toolCall('execute_sql', { sql: 'SELEC name FROM country' }), makeCtx({ example }));
    expect(observation(err)).toMatch(/^Error: near "SELEC": syntax error\n\(3 turns left\)$/);
    expect(err.done === false && err.exec?.status).toBe('error');
    const write = observation(await env.step(toolCall('execute_sql', { sql: 'DROP TABLE country' }), makeCtx({ example })));
    expect(write).toMatch(/^Error: query refused: only read-only queries/);
    const attach = observation(await env.step(toolCall('execute_sql', { sql: "ATTACH 'x.db' AS x" }), makeCtx({ example })));
    expect(attach).toMatch(/^Error: query refused: ATTACH is not allowed/);
    const two = observation(await env.step(toolCall('execute_sql', { sql: 'SELECT 1; SELECT 2' }), makeCtx({ example })));
    expect(two).toMatch(/^Error: query refused: only one statement/);
  });

  it('turns malformed calls into error observations', async () => {
    expect(observation(await env.step(toolCall('run_sql', { sql: 'SELECT 1' }), makeCtx({ example })))).toMatch(/^Error: unknown tool "run_sql"/);
    expect(observation(await env.step(toolCall('execute_sql', { query: 'SELECT 1' }), makeCtx({ example })))).toMatch(/^Error: execute_sql expects \{"sql"/);
    expect(observation(await env.step(toolCall('execute_sql', { sql: '' }), makeCtx({ example })))).toMatch(/^Error: execute_sql expects/);
  });

  it('returns a timeout observation for a runaway query within its deadline', async () => {
    // Hazard: a `WITH RECURSIVE` without end would hang the rollout (better-sqlite3 has no interrupt).
    const t0 = performance.now();
    const out = await env.step(toolCall('execute_sql', { sql: RUNAWAY_SQL }), makeCtx({ example }));
    const wallMs = performance.now() - t0;
    expect(observation(out)).toMatch(/^Error: the query did not finish within 500 ms and was stopped\./);
    expect(out.done === false && out.exec?.status).toBe('timeout');
    expect(wallMs).toBeLessThan(500 + 3_000);
    // The pool has replaced the killed process.
    expect(observation(await env.step(toolCall('execute_sql', { sql: 'SELECT 1 AS one' }), makeCtx({ example })))).toMatch(/^one\n1\n/);
  });

  it('enforces maxTurns: counts down, warns on the last query, ends the episode after', async () => {
    const at = (toolCalls: number) => env.step(toolCall('execute_sql', { sql: 'SELECT 1 AS x' }), makeCtx({ example, toolCalls }));
    expect(observation(await at(1))).toMatch(/\(2 turns left\)$/);
    expect(observation(await at(2))).toMatch(/\(1 turn left: give the final query now\)$/);
    expect(await at(3)).toEqual({ done: true, reason: 'env_done' });
  });

  it('ends the episode on answers and invalid turns', async () => {
    expect(await env.step({ kind: 'answer', content: '```sql\nSELECT 1\n```', raw: '' }, makeCtx({ example }))).toEqual({ done: true, reason: 'answer' });
    expect(await env.step({ kind: 'invalid', reason: 'truncated', content: '', raw: '' }, makeCtx({ example }))).toEqual({ done: true, reason: 'invalid' });
  });

  it('fails at construction for bad options or an unreadable database', () => {
    expect(() => sqlAgent({ database: DB_BYTES, maxTurns: 1, rowLimit: 0 })).toThrow(ConfigError);
    expect(() => sqlAgent({ database: Buffer.from('not a database at all, definitely not') })).toThrow(SqlDatabaseError);
  });
});
