import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { loadMathDataset } from 'agentrl';
import { prepareData } from '../../examples/retool/prepare-data.js';
import { generateDapoRows, generateProblems } from '../../examples/retool/problems.js';

/** A small DAPO-Math style fixture: nested `prompt` list-of-structs and `reward_model` struct, as the real Parquet has. */
function fixtureRows() {
  const rows: Record<string, unknown>[] = generateDapoRows(6, 99, 'fx');
  rows.push({ data_source: 'broken', prompt: [], reward_model: { ground_truth: '1' }, extra_info: { index: 'bad' } });
  return rows;
}

describe('retool prepare-data', () => {
  it('generated problems are deterministic and their answers equal their Python expression', () => {
    const a = generateProblems(50, 3);
    expect(generateProblems(50, 3)).toEqual(a);
    for (const p of a) {
      // Python's // on positive ints is JS Math.floor division.
      const js = p.expression.replace(/(\d+)\/\/(\d+)/g, 'Math.floor($1/$2)');
      expect(String(Function(`return ${js}`)())).toBe(p.answer);
    }
  });

  it('converts a JSONL fixture: template stripped, bad rows skipped and counted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'retool-'));
    const input = join(dir, 'rows.jsonl');
    await writeFile(input, fixtureRows().map((r) => JSON.stringify(r)).join('\n'));
    const r = await prepareData({ input, out: dir, dev: 2, count: 0, seed: 0 });
    expect(r).toEqual({ train: 4, dev: 2, skipped: 1 });
    const train = await loadMathDataset(join(dir, 'train.jsonl'));
    expect(train[0]!.question).not.toMatch(/Answer:|Remember/);
    expect(train[0]!.id).toBe('fx-0');
    expect(train[0]!.meta?.['expression']).toBeTypeOf('string');
  });

  it('converts a Parquet fixture with nested columns the same way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'retool-'));
    const rows = fixtureRows();
    const cols = ['data_source', 'prompt', 'reward_model', 'extra_info'];
    const buf = parquetWriteBuffer({ columnData: cols.map((name) => ({ name, data: rows.map((r) => r[name]) })) });
    const input = join(dir, 'rows.parquet');
    await writeFile(input, new Uint8Array(buf));
    const r = await prepareData({ input, out: dir, dev: 2, count: 0, seed: 0 });
    expect(r).toEqual({ train: 4, dev: 2, skipped: 1 });
    const jsonlDir = await mkdtemp(join(tmpdir(), 'retool-'));
    const input2 = join(jsonlDir, 'rows.jsonl');
    await writeFile(input2, rows.map((x) => JSON.stringify(x)).join('\n'));
    await prepareData({ input: input2, out: jsonlDir, dev: 2, count: 0, seed: 0 });
    expect(await readFile(join(dir, 'train.jsonl'), 'utf8')).toBe(await readFile(join(jsonlDir, 'train.jsonl'), 'utf8'));
  });
});
