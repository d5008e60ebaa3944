import { afterAll, describe, expect, it } from 'vitest';
import { sqlExecutionMatch } from '../../src/reward/sql-execution-match.js';
import { sqlQueryPool } from '../../src/env/sql/index.js';
import type { Trajectory } from '../../src/types/trajectory.js';
import type { Example } from '../../src/types/example.js';
import { DB_BYTES, RUNAWAY_SQL } from '../env/sql/fixtures.js';

const ex = (answer: string): Example => ({ id: 'sql-x', question: '…', answer });
function traj(finalText: string, stopReason: Trajectory['stopReason'] = 'answer'): Trajectory {
  return { id: 'sql-x/0', example: ex(''), groupIndex: 0, messages: [], turns: [], stopReason, toolCalls: 1, finalText };
}
const fence = (sql: string) => `Here it is:\n\`\`\`sql\n${sql}\n\`\`\``;

describe('sqlExecutionMatch (real SQLite database)', () => {
  const reward = sqlExecutionMatch({ database: DB_BYTES, timeoutMs: 2_000 });
  afterAll(() => reward.close());

  it('credits a different query with the same result bag; column order may differ (Spider)', async () => {
    const gold = ex("SELECT name, capital FROM country WHERE continent = 'Oceania' AND population > 10000000");
    const pred = fence("SELECT capital, name FROM country WHERE population > 10000000 AND continent = 'Oceania' ORDER BY name DESC");
    expect(await reward(traj(pred), gold)).toMatchObject({ reward: 1, correct: true, validFormat: true });
  });

  // Hazard (issue 13 §1): the shared ending rule — invalid, cut or reasoning-only replies are never credited.
  it('scores only valid endings, searching the SQL after the last </think>', async () => {
    const gold = ex("SELECT capital FROM country WHERE name = 'Peru'");
    const right = fence("SELECT capital FROM country WHERE name = 'Peru'");
    const strict = sqlExecutionMatch({ database: DB_BYTES, timeoutMs: 2_000, invalidFormat: -1 });
    try {
      expect(await strict(traj(right), gold)).toMatchObject({ reward: 1, correct: true });
      expect(await strict(traj(right, 'invalid'), gold)).toEqual({ reward: -1, correct: false, validFormat: false, failure: 'invalid_format' });
      expect(await strict(traj(right, 'max_turn_tokens'), gold)).toEqual({ reward: -1, correct: false, validFormat: false, failure: 'truncated' });
      expect(await strict(traj(right, 'max_tool_calls'), gold)).toMatchObject({ reward: -1, failure: 'no_answer' });
      expect(await strict(traj(`<think>${right}</think> I cannot tell.`), gold)).toMatchObject({ reward: -1, failure: 'no_answer' });
      expect(await strict(traj(`<think>${right}`), gold)).toMatchObject({ reward: -1, failure: 'no_answer' });
      expect(await strict(traj(`<think>hmm</think>${right}`), gold)).toMatchObject({ reward: 1, correct: true });
    } finally {
      await strict.close();
    }
    const lenient = sqlExecutionMatch({ database: DB_BYTES, timeoutMs: 2_000, scoreTruncated: true });
    try {
      expect(await lenient(traj(right, 'max_trajectory_tokens'), gold)).toMatchObject({ reward: 1, correct: true });
    } finally {
      await lenient.close();
    }
  });

  it('requires row order only when the gold SQL has ORDER BY', async () => {
    const gold = ex("SELECT name FROM country WHERE continent = 'Europe' ORDER BY surface_area DESC LIMIT 3");
    const right = fence("SELECT name FROM country WHERE continent = 'Europe' ORDER BY surface_area DESC LIMIT 3");
    const reversed = fence(
      "SELECT name FROM (SELECT name, surface_area FROM country WHERE continent = 'Europe' ORDER BY surface_area DESC LIMIT 3) ORDER BY surface_area",
    );
    expect((await reward(traj(right), gold)).correct).toBe(true);
    expect((await reward(traj(reversed), gold)).correct).toBe(false);
  });

  it('rounds floats (AVG computed two ways) and treats 1 and 1.0 alike', async () => {
    const gold = ex("SELECT AVG(life_expectancy) FROM country WHERE continent = 'Africa'");
    const pred = fence("SELECT SUM(life_expectancy) * 1.0 / COUNT(life_expectancy) FROM country WHERE continent = 'Africa'");
    expect((await reward(traj(pred), gold)).correct).toBe(true);
    expect((await reward(traj(fence('SELECT 1.0')), ex('SELECT 1'))).correct).toBe(true);
  });

  it('scores wrong results, SQL errors, refused writes and runaway queries as wrong, with reasons', async () => {
    const gold = ex("SELECT capital FROM country WHERE name = 'Peru'");
    expect(await reward(traj(fence("SELECT capital FROM country WHERE name = 'Chile'")), gold)).toMatchObject({ reward: 0, correct: false, validFormat: true });
    expect(await reward(traj(fence('SELECT capitol FROM country')), gold)).toMatchObject({ reward: 0, failure: 'unparseable_prediction' });
    expect(await reward(traj(fence('DELETE FROM country')), gold)).toMatchObject({ reward: 0, failure: 'unparseable_prediction' });
    const t0 = performance.now();
    const strict = sqlExecutionMatch({ database: DB_BYTES, timeoutMs: 300 });
    try {
      expect(await strict(traj(fence(RUNAWAY_SQL)), gold)).toMatchObject({ reward: 0, failure: 'timeout' });
      expect(performance.now() - t0).toBeLessThan(3_000);
    } finally {
      await strict.close();
    }
  });

  it('gives invalidFormat when there is no final SQL block or the trajectory was invalid', async () => {
    const r = sqlExecutionMatch({ database: DB_BYTES, invalidFormat: -1 });
    try {
      const gold = ex("SELECT capital FROM country WHERE name = 'Peru'");
      expect(await r(traj('The capital is Lima.'), gold)).toMatchObject({ reward: -1, validFormat: false, failure: 'no_answer' });
      expect(await r(traj(fence(gold.answer), 'invalid'), gold)).toMatchObject({ reward: -1, failure: 'invalid_format' });
      expect(await r(traj(`<solution>${gold.answer}</solution>`), gold)).toMatchObject({ reward: 1 });
    } finally {
      await r.close();
    }
  });

  it('drops the sample when the gold SQL itself fails, never rewarding it', async () => {
    const r = await reward(traj(fence('SELECT 1')), ex('SELECT missing_column FROM country'));
    expect(r).toMatchObject({ correct: false, failure: 'gold_unparseable', drop: true });
  });

  it('can share the environment’s query pool', async () => {
    const pool = sqlQueryPool({ database: DB_BYTES, workers: 1 });
    try {
      const shared = sqlExecutionMatch({ database: pool });
      expect((await shared(traj(fence('SELECT COUNT(*) FROM country')), ex('SELECT count(name) FROM country'))).correct).toBe(true);
      await shared.close(); // does not close a pool it did not create
      expect((await pool.query({ sql: 'SELECT 1' })).status).toBe('ok');
    } finally {
      await pool.close();
    }
  });
});
