import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { loadDataset, readParquet } from '../../src/data/index.js';
import { gsm8kFinalAnswer, presetRowToExample } from '../../src/data/presets.js';
import { ConfigError, DatasetError } from '../../src/errors/index.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/parquet/${name}`, import.meta.url));
const DAPO_Q =
  'Solve the following math problem step by step. The last line of your response should be of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\nFind 2+2.\n\nRemember to put your answer on its own line after "Answer:".';

async function jsonl(rows: unknown[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentrl-presets-'));
  const path = join(dir, 'rows.jsonl');
  await writeFile(path, rows.map((r) => JSON.stringify(r)).join('\n'));
  return path;
}

describe('GSM8K answers', () => {
  it('takes the text after the last ####, without thousands separators', () => {
    expect(gsm8kFinalAnswer('3*400 = 1200\n#### 1,200')).toBe('1200');
    expect(gsm8kFinalAnswer('#### 1,234,567')).toBe('1234567');
    expect(gsm8kFinalAnswer('a #### 3 then\n#### -4.5')).toBe('-4.5');
    expect(gsm8kFinalAnswer('no marker here')).toBeUndefined();
    expect(gsm8kFinalAnswer('####   ')).toBeUndefined();
  });
});

describe('loadDataset presets', () => {
  it('gsm8k from a zstd-compressed Parquet file: answers after ####, solution kept in meta', async () => {
    const ex = await loadDataset(fixture('gsm8k-zstd.parquet'), { preset: 'gsm8k' });
    expect(ex.map((e) => e.answer)).toEqual(['1200', '60']);
    expect(ex[0]!.id).toBe('gsm8k-1');
    expect(String(ex[0]!.meta?.['solution'])).toContain('<<3*400=1200>>');
  });

  it('math500 from a gzip-compressed Parquet file (problem column, unique_id ids)', async () => {
    const ex = await loadDataset(fixture('math500-gzip.parquet'), { preset: 'math500' });
    expect(ex.map((e) => [e.id, e.question, e.answer])).toEqual([
      ['test/counting_and_probability/1.json', 'Compute $\\dbinom{8}{4}$.', '70'],
      ['test/prealgebra/2.json', 'What is $\\sqrt{49}$?', '7'],
    ]);
    expect(ex[1]!.meta?.['subject']).toBe('Prealgebra');
  });

  it('reads gzip pages written at run time too (and Snappy as before)', async () => {
    const { gzipSync } = await import('node:zlib');
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-pq-'));
    for (const codec of ['GZIP', 'SNAPPY'] as const) {
      const path = join(dir, `${codec}.parquet`);
      const buf = parquetWriteBuffer({
        columnData: [
          { name: 'Problem', data: ['p1', 'p2', 'p3'] },
          { name: 'Answer', data: ['1', '2', '3'] },
          { name: 'ID', data: ['2024-I-1', '2024-I-2', '2024-II-1'] },
        ],
        codec,
        compressors: { GZIP: (b) => new Uint8Array(gzipSync(b)) },
      });
      await writeFile(path, new Uint8Array(buf));
      expect((await readParquet(path)).length).toBe(3);
      const ex = await loadDataset(path, { preset: 'aime' });
      expect(ex.map((e) => [e.id, e.answer])).toEqual([
        ['2024-I-1', '1'],
        ['2024-I-2', '2'],
        ['2024-II-1', '3'],
      ]);
    }
  });

  it('aime 2025 (lower-case columns), DAPO-format AIME, dapo and openr1-dapo', async () => {
    const aime25 = await loadDataset(await jsonl([{ id: 0, problem: 'Find x.', answer: '70' }]), { preset: 'aime' });
    expect(aime25[0]).toMatchObject({ id: '0', question: 'Find x.', answer: '70' });
    const dapoRow = {
      data_source: 'math_dapo',
      prompt: [{ role: 'user', content: DAPO_Q }],
      reward_model: { ground_truth: '4', style: 'rule' },
      extra_info: { index: 'abc' },
    };
    const aimeDapo = await loadDataset(await jsonl([dapoRow]), { preset: 'aime' });
    expect(aimeDapo[0]).toMatchObject({ id: 'aime-abc', question: 'Find 2+2.', answer: '4' });
    const dapo = await loadDataset(await jsonl([dapoRow]), { preset: 'dapo' });
    expect(dapo[0]).toMatchObject({ id: 'abc', question: 'Find 2+2.', answer: '4' });
    const openr1 = await loadDataset(
      await jsonl([
        { prompt: DAPO_Q, solution: '4', data_source: 'math_dapo', extra_info: { index: 7 } },
        { prompt: 'Find 3+3.', reward_model: { ground_truth: '6' } },
      ]),
      { preset: 'openr1-dapo' },
    );
    expect(openr1.map((e) => [e.id, e.question, e.answer])).toEqual([
      ['7', 'Find 2+2.', '4'],
      ['openr1-dapo-2', 'Find 3+3.', '6'],
    ]);
  });

  it('names the row without its preset’s columns, refuses unknown presets and preset + map', async () => {
    const path = await jsonl([{ question: 'q', answer: 'worked solution, no marker' }]);
    await expect(loadDataset(path, { preset: 'gsm8k' })).rejects.toThrow(DatasetError);
    await expect(loadDataset(path, { preset: 'gsm8k' })).rejects.toThrow(/row 1 does not have the 'gsm8k' layout/);
    await expect(loadDataset(path, { preset: 'gsm9k' as never })).rejects.toThrow(ConfigError);
    await expect(loadDataset(path, { preset: 'math500', map: (r) => r as never })).rejects.toThrow(/either preset or map/);
    expect(presetRowToExample('math500', { problem: 'p' }, 1)).toBeNull();
  });
});
