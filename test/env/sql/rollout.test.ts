import { afterAll, describe, expect, it } from 'vitest';
import { runGroup, DEFAULT_BUDGETS } from '../../../src/rollout/index.js';
import { scriptedSampler, type Script } from '../../../src/testing/index.js';
import { sqlAgent } from '../../../src/env/sql/index.js';
import { sqlExecutionMatch } from '../../../src/reward/sql-execution-match.js';
import { localRenderer } from '../../helpers/local-renderer.js';
import { DB_BYTES, RUNAWAY_SQL } from './fixtures.js';

const call = (sql: unknown) => `<tool_call>\n${JSON.stringify({ name: 'execute_sql', arguments: { sql } })}\n</tool_call>`;
const example = { id: 'pe', question: 'What is the capital of Peru?', answer: "SELECT capital FROM country WHERE name = 'Peru'" };
const final = "The answer query:\n```sql\nSELECT capital FROM country WHERE name = 'Peru';\n```";

const script: Script = ({ prompt, call: n, sample }) => {
  if (n === 0) {
    return (
      [
        call("SELECT name, capital FROM country WHERE name LIKE 'Per%'"),
        call(RUNAWAY_SQL),
        call('SELEC 1'),
        "```sql\nSELECT capital FROM country WHERE name = 'Chile'\n```",
      ][sample] ?? ''
    );
  }
  if (prompt.includes('did not finish within')) return final;
  if (prompt.includes('syntax error')) return call('SELEC 2');
  if (prompt.includes('Peru | Lima')) return final;
  return 'unexpected';
};

describe('sqlAgent through the rollout engine', () => {
  const env = sqlAgent({ database: DB_BYTES, maxTurns: 3, rowLimit: 10, timeoutMs: 400 });
  const reward = sqlExecutionMatch({ database: DB_BYTES });
  afterAll(async () => {
    await env.close?.();
    await reward.close();
  });

  it('runs a group: a table, a runaway query, repeated errors to the turn budget, a wrong answer; scores by execution', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script });
    const t0 = performance.now();
    const group = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 6, maxToolResponseTokens: 1024, maxTrajectoryTokens: 16_384 } },
      { example, groupSize: 4 },
    );
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'answer', 'env_done', 'answer']);
    expect(group[0]!.turns[0]!.observation?.[0]?.content).toBe('name | capital\nPeru | Lima\n(1 row)\n(2 turns left)');
    expect(group[1]!.turns[0]!.exec?.status).toBe('timeout');
    expect(group[1]!.turns[0]!.observation?.[0]?.content).toMatch(/^Error: the query did not finish within 400 ms/);
    expect(group[2]!.turns[1]!.observation?.[0]?.content).toMatch(/syntax error\n\(1 turn left: give the final query now\)$/);

    const rewards = await Promise.all(group.map((t) => reward(t, example)));
    expect(rewards.map((r) => r.reward)).toEqual([1, 1, 0, 0]);
    expect(rewards[2]).toMatchObject({ failure: 'no_answer' });
  });
});
