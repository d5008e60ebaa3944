import { readFile } from 'node:fs/promises';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { DatasetError } from '../errors/data-errors.js';
import type { Example } from '../types/example.js';
import { dapoRowToExample } from './dapo.js';

/**
 * Reads a JSONL file into an array of parsed rows. Blank lines are skipped.
 * @throws DatasetError naming the file and line of the first malformed row.
 */
export async function readJsonl(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new DatasetError(`cannot read ${path}`, { cause });
  }
  const rows: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    try {
      rows.push(JSON.parse(line));
    } catch (cause) {
      throw new DatasetError(`${path}:${i + 1}: invalid JSON`, { cause });
    }
  }
  return rows;
}

/** Reads every row of a Parquet file as plain objects (hyparquet; nested lists/structs supported). */
export async function readParquet(path: string): Promise<Record<string, unknown>[]> {
  try {
    const file = await asyncBufferFromFile(path);
    return (await parquetReadObjects({ file })) as Record<string, unknown>[];
  } catch (cause) {
    throw new DatasetError(`cannot read Parquet file ${path}`, { cause });
  }
}

function toExample(row: unknown, index: number, path: string): Example {
  if (typeof row === 'object' && row !== null) {
    const r = row as Record<string, unknown>;
    if (typeof r['question'] === 'string' && r['answer'] !== undefined) {
      const { id, question, answer, ...meta } = r;
      return { id: String(id ?? index), question: question as string, answer: String(answer), meta };
    }
    const dapo = dapoRowToExample(row, index);
    if (dapo) return dapo;
  }
  throw new DatasetError(`${path}: row ${index} has neither {question, answer} nor a DAPO prompt/reward_model`);
}

/**
 * Loads a math dataset as {@link Example}s from `.jsonl` or `.parquet`. Rows may be in our own
 * shape (`{ id, question, answer, ...meta }`) or DAPO-Math style (`prompt[0].content`,
 * `reward_model.ground_truth`; the DAPO answer template is stripped).
 * @param opts.limit - keep only the first `limit` examples.
 * @throws DatasetError when the file cannot be read or a row has no question/answer.
 */
export async function loadMathDataset(path: string, opts: { limit?: number } = {}): Promise<Example[]> {
  const rows = path.endsWith('.parquet') ? await readParquet(path) : await readJsonl(path);
  const out = rows.map((r, i) => toExample(r, i, path));
  return opts.limit !== undefined ? out.slice(0, opts.limit) : out;
}
