import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { loadMathDataset } from 'agentrl';
import { prepareData, prepareRows } from '../../examples/retool/prepare-data.js';
import { canonicalKeys, overlappingPairs } from '../../examples/shared/overlap.js';
import { PATHS } from '../../examples/retool/config.js';
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
    await writeFile(
      input,
      fixtureRows()
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const r = await prepareData({ input, out: dir, dev: 2, count: 0, seed: 0 });
    expect(r).toEqual({ train: 4, dev: 2, skipped: 1, overlapping: 0 });
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
    expect(r).toEqual({ train: 4, dev: 2, skipped: 1, overlapping: 0 });
    const jsonlDir = await mkdtemp(join(tmpdir(), 'retool-'));
    const input2 = join(jsonlDir, 'rows.jsonl');
    await writeFile(input2, rows.map((x) => JSON.stringify(x)).join('\n'));
    await prepareData({ input: input2, out: jsonlDir, dev: 2, count: 0, seed: 0 });
    expect(await readFile(join(dir, 'train.jsonl'), 'utf8')).toBe(await readFile(join(jsonlDir, 'train.jsonl'), 'utf8'));
  });

  it('canonical form: the same numbers in any order or wording overlap; different numbers do not', () => {
    const k = (q: string) => canonicalKeys(q);
    const shares = (a: string, b: string) => k(a).some((x) => k(b).includes(x));
    expect(shares('What is 12 times 34?', 'A farm has 34 rows of 12 trees. How many trees are there?')).toBe(true);
    expect(shares('What is 12 times 34?', 'what is 12 TIMES 34')).toBe(true);
    expect(shares('What is 12 times 34?', 'What is 12 times 35?')).toBe(false);
    expect(shares('What is 12 times 34?', 'What is 12 times 12?')).toBe(false);
  });

  it('the dev split skips candidates that overlap training (or an earlier dev problem) and counts them', () => {
    const row = (q: string, a: string) => ({ prompt: [{ role: 'user', content: q }], reward_model: { ground_truth: a } });
    const rows = [
      row('What is 12 times 34?', '408'),
      row('What is 20 times 30?', '600'),
      row('Each of 34 shelves holds 12 books.', '408'),
      row('What is 41 times 52?', '2132'),
      row('What is 52 times 41?', '2132'),
      row('What is 11 times 13?', '143'),
    ];
    const r = prepareRows(rows, 2, { trainCount: 2 });
    expect(r.train.map((e) => e.question)).toEqual(['What is 12 times 34?', 'What is 20 times 30?']);
    expect(r.dev.map((e) => e.question)).toEqual(['What is 41 times 52?', 'What is 11 times 13?']);
    expect(r.overlapping).toBe(2);
  });

  // Hazard: dev problems that are training problems (9 of 32 same expression, 16 the same up to operand order before
  // the fix) make the README's before/after table measure recall.
  it('the shipped dev split is disjoint from the training split by canonical form', async () => {
    const train = await loadMathDataset(PATHS.train);
    const dev = await loadMathDataset(PATHS.dev);
    expect(dev.length).toBe(64);
    expect(overlappingPairs(train, dev)).toEqual([]);
    expect(
      overlappingPairs(
        dev,
        dev.map((e) => ({ ...e, id: e.id + '-copy' })),
      ),
    ).toHaveLength(64); // the check can fail
  });
});
