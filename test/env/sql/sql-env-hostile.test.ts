import { afterAll, describe, expect, it } from 'vitest';
import { sqlAgent } from '../../../src/env/sql/index.js';
import { sqlExecutionMatch } from '../../../src/reward/sql-execution-match.js';
import type { StepOutcome } from '../../../src/env/types.js';
import type { Trajectory } from '../../../src/types/trajectory.js';
import { makeCtx, toolCall } from '../search/make-ctx.js';
import { DB_BYTES } from './fixtures.js';

const example = { id: 'sql-h', question: 'How many countries?', answer: 'SELECT COUNT(*) FROM country' };
const ISSUE_INPUT = 'PRAGMA table_info' + ' '.repeat(3000) + 'x';

function observation(o: StepOutcome): string {
  if (o.done) throw new Error('expected an observation, got done');
  return o.observation.map((m) => m.content).join('\n');
}

describe('sqlAgent and sqlExecutionMatch on hostile SQL (issue 14)', () => {
  const env = sqlAgent({ database: DB_BYTES, maxTurns: 5, memoryLimitBytes: 64 * 1024 * 1024 });
  const reward = sqlExecutionMatch({ database: DB_BYTES, timeoutMs: 5_000 });
  afterAll(async () => {
    await env.close?.();
    await reward.close();
  });

  it('answers the issue input at once, as an execute_sql call and as a final SQL answer (§1)', async () => {
    // Hazard: the guard's pattern took 6–9 s on this input, on the trainer's thread.
    const t0 = performance.now();
    const out = await env.step(toolCall('execute_sql', { sql: ISSUE_INPUT }), makeCtx({ example }));
    expect(observation(out)).toMatch(/^Error: query refused: only these PRAGMAs are allowed/);
    const traj = {
      id: 'sql-h/0',
      example,
      groupIndex: 0,
      messages: [],
      turns: [],
      stopReason: 'answer',
      toolCalls: 0,
      finalText: '```sql\n' + ISSUE_INPUT + '\n```',
    } as Trajectory;
    expect(await reward(traj, example)).toMatchObject({ reward: 0, failure: 'unparseable_prediction' });
    expect(performance.now() - t0).toBeLessThan(5_000); // query processes start in this window; the guard itself takes < 1 ms
  });

  it('reports a query past the memory limit as a `memory` observation (§3)', async () => {
    const out = await env.step(toolCall('execute_sql', { sql: 'SELECT length(hex(zeroblob(200000000)))' }), makeCtx({ example }));
    if (process.platform !== 'linux') return;
    expect(observation(out)).toMatch(/^Error: the query ran out of memory and was stopped\./);
    expect(out.done === false && out.exec?.status).toBe('memory');
    const next = await env.step(toolCall('execute_sql', { sql: 'SELECT COUNT(*) FROM country' }), makeCtx({ example }));
    expect(observation(next)).toMatch(/^COUNT\(\*\)\n248\n/);
  });
});
