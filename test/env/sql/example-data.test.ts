import { afterAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadMathDataset } from '../../../src/data/index.js';
import { readSchema } from '../../../src/env/sql/index.js';
import { sqlExecutionMatch } from '../../../src/reward/sql-execution-match.js';
import type { Trajectory } from '../../../src/types/trajectory.js';
import { DB_BYTES } from './fixtures.js';

const file = (p: string) => fileURLToPath(new URL(`../../../examples/sql-agent/data/${p}`, import.meta.url));

describe('sql-agent example data', () => {
  const reward = sqlExecutionMatch({ database: DB_BYTES });
  afterAll(() => reward.close());

  it('ships a two-table database', () => {
    const schema = readSchema(DB_BYTES);
    expect(schema).toMatch(/^CREATE TABLE country \(/);
    expect(schema).toMatch(/CREATE TABLE country_language/);
  });

  it('has test questions whose gold SQL runs and matches itself', async () => {
    const test = await loadMathDataset(file('test.jsonl'));
    expect(test).toHaveLength(80);
    for (const ex of test) {
      expect(ex.meta?.['dbId']).toBe('countries');
      const t = { finalText: '```sql\n' + ex.answer + '\n```', stopReason: 'answer' } as Trajectory;
      expect(await reward(t, ex), ex.id).toMatchObject({ correct: true, reward: 1 });
    }
  });
});
