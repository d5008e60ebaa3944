import { readFile } from 'node:fs/promises';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DatasetError } from '../errors/data-errors.js';
import type { Example } from '../types/example.js';
import { dapoRowToExample } from './dapo.js';
import { DATASET_PRESETS, presetRowToExample, type DatasetPreset } from './presets.js';
import { ConfigError } from '../errors/index.js';
import { exampleIssues } from './validate.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const LOAD_DATASET_OPTIONS = optionKeys<LoadDatasetOptions>({ map: true, limit: true, preset: true });
const LOAD_MATH_DATASET_OPTIONS = optionKeys<NonNullable<Parameters<typeof loadMathDataset>[1]>>({ limit: true, dedupe: true });

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

/**
 * Reads every row of a Parquet file as plain objects (hyparquet; nested lists/structs supported). Pages compressed
 * with Snappy, gzip, zstd, Brotli or LZ4 are decompressed (hyparquet-compressors).
 */
export async function readParquet(path: string): Promise<Record<string, unknown>[]> {
  try {
    const file = await asyncBufferFromFile(path);
    return (await parquetReadObjects({ file, compressors })) as Record<string, unknown>[];
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
  throw new DatasetError(`${path}: row ${index + 1} has neither {question, answer} nor a DAPO prompt/reward_model`);
}

/** Throws one DatasetError listing every row problem of `rows` (1-based row numbers). */
function assertExamples(rows: readonly unknown[], path: string): void {
  const issues = exampleIssues(rows, path);
  if (issues.length === 0) return;
  const shown = issues.slice(0, 20).map((i) => `  - ${i.message}`);
  if (issues.length > 20) shown.push(`  - … and ${issues.length - 20} more`);
  if (issues.some((i) => i.message.includes('duplicate id')))
    shown.push('  (rows that repeat a problem exactly: loadMathDataset(path, { dedupe: true }) drops the repeats)');
  throw new DatasetError(`${issues.length} problem${issues.length === 1 ? '' : 's'} in ${path}:\n${shown.join('\n')}`);
}

/** Options of {@link loadDataset}. */
export interface LoadDatasetOptions<E extends Example = Example> {
  /**
   * Turns one parsed row into an Example (`rowNumber` is 1-based). @default the row itself, which must then be
   * `{ id, question, answer, …meta }` (fields other than these three go to `meta`)
   */
  readonly map?: (row: Record<string, unknown>, rowNumber: number) => E;
  /** Keep only the first `limit` examples. */
  readonly limit?: number;
  /**
   * A published layout, read by its column names (see `presetRowToExample`): `'gsm8k'` (answer after `####`),
   * `'math500'`, `'aime'` (2024 / 2025, `problem` column, or DAPO-format), `'dapo'` (DAPO-Math-17k),
   * `'openr1-dapo'` (open-r1's processed DAPO-Math-17k). Exclusive with `map`. @default none
   */
  readonly preset?: DatasetPreset;
}

/**
 * Loads any task's dataset as {@link Example}s from `.jsonl` (one JSON object per line) or `.parquet`. Each row
 * must be `{ "id": "q1", "question": "…", "answer": "…" }` (other fields are kept in `meta`), or is turned into one
 * by `opts.map`. For math sets in DAPO format use {@link loadMathDataset}.
 * @example
 * ```ts
 * const train = await loadDataset('data/train.jsonl');
 * const qa = await loadDataset('data/qa.parquet', { map: (r, n) => ({ id: `qa-${n}`, question: String(r.q), answer: String(r.a) }) });
 * const gsm8k = await loadDataset('gsm8k/test-00000-of-00001.parquet', { preset: 'gsm8k' });
 * ```
 * @throws DatasetError when the file cannot be read, a line is not JSON, or rows miss `id` / `question` / `answer`
 *   (as strings) or share an id — listing every bad row by its 1-based number; a row without its preset's columns.
 * @throws ConfigError for an unknown preset, or both `preset` and `map`.
 */
export async function loadDataset<E extends Example = Example>(path: string, opts: LoadDatasetOptions<E> = {}): Promise<E[]> {
  checkOptions('loadDataset options', LOAD_DATASET_OPTIONS, opts, { optional: true });
  const preset = opts.preset;
  if (preset !== undefined && !DATASET_PRESETS.includes(preset)) {
    throw new ConfigError('loadDataset options', [
      { path: 'preset', message: `expected ${DATASET_PRESETS.map((p) => `'${p}'`).join(' | ')}, got ${JSON.stringify(preset)}` },
    ]);
  }
  if (preset !== undefined && opts.map) throw new ConfigError('loadDataset options', [{ path: 'preset', message: 'give either preset or map, not both' }]);
  const rows = (path.endsWith('.parquet') ? await readParquet(path) : await readJsonl(path)) as Record<string, unknown>[];
  const mapped = rows.map((row, i) => {
    if (opts.map) return opts.map(row, i + 1);
    if (preset !== undefined) {
      const ex = typeof row === 'object' && row !== null ? presetRowToExample(preset, row, i + 1) : null;
      if (ex === null)
        throw new DatasetError(
          `${path}: row ${i + 1} does not have the '${preset}' layout's question and answer columns (found: ${typeof row === 'object' && row !== null ? Object.keys(row).join(', ') : typeof row})`,
        );
      return ex;
    }
    if (typeof row !== 'object' || row === null) return row;
    const { id, question, answer, ...meta } = row;
    return { id, question, answer, ...(Object.keys(meta).length ? { meta } : {}) };
  });
  assertExamples(mapped, path);
  const out = mapped as E[];
  return opts.limit !== undefined ? out.slice(0, opts.limit) : out;
}

/**
 * Loads a math dataset as {@link Example}s from `.jsonl` or `.parquet`. Rows may be in our own
 * shape (`{ id, question, answer, ...meta }`) or DAPO-Math style (`prompt[0].content`,
 * `reward_model.ground_truth`; the DAPO answer template is stripped).
 * @param opts.limit - keep only the first `limit` examples.
 * @param opts.dedupe - drop rows that repeat an earlier row exactly (same id, question and answer), as the published
 *   DAPO-Math-17k parquet does (each problem many times); rows sharing an id but differing are still an error.
 * Rows without an `id` get their 0-based index as id (as before).
 * @throws DatasetError when the file cannot be read, a row has no question/answer, or two rows share an id (1-based row numbers).
 */
export async function loadMathDataset(path: string, opts: { limit?: number; dedupe?: boolean } = {}): Promise<Example[]> {
  checkOptions('loadMathDataset options', LOAD_MATH_DATASET_OPTIONS, opts, { optional: true });
  const rows = path.endsWith('.parquet') ? await readParquet(path) : await readJsonl(path);
  let out = rows.map((r, i) => toExample(r, i, path));
  if (opts.dedupe) {
    const seen = new Set<string>();
    out = out.filter((e) => {
      const key = JSON.stringify([e.id, e.question, e.answer]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  assertExamples(out, path);
  return opts.limit !== undefined ? out.slice(0, opts.limit) : out;
}
