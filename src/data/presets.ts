import type { Example } from '../types/example.js';
import { dapoRowToExample, stripDapoTemplate } from './dapo.js';

/** The dataset layouts `loadDataset(path, { preset })` knows, chosen by their column names. */
export type DatasetPreset = 'gsm8k' | 'math500' | 'aime' | 'dapo' | 'openr1-dapo';

/** The preset names, for validation messages. */
export const DATASET_PRESETS: readonly DatasetPreset[] = ['gsm8k', 'math500', 'aime', 'dapo', 'openr1-dapo'];

type Row = Record<string, unknown>;

/** The first of `keys` present in the row with a string or number value (column names as published vary in case). */
function field(row: Row, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = row[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  }
  return undefined;
}

/**
 * GSM8K's final answer: the text after the last `####` of its worked solution, without thousands separators
 * (`"… so she has 1,200 left.\n#### 1,200"` → `"1200"`). `undefined` when there is no `####`.
 */
export function gsm8kFinalAnswer(solution: string): string | undefined {
  const at = solution.lastIndexOf('####');
  if (at < 0) return undefined;
  const answer = solution
    .slice(at + 4)
    .trim()
    .replace(/(\d),(?=\d{3}\b)/g, '$1');
  return answer === '' ? undefined : answer;
}

const rest = (row: Row, used: readonly string[]): Row => Object.fromEntries(Object.entries(row).filter(([k]) => !used.includes(k)));

/**
 * One row of a preset's layout → an {@link Example}, or `null` when the row lacks its question or answer (the loader
 * then reports the row by number):
 * - `gsm8k` (`question`, `answer` = worked solution ending `#### N`): answer N, the solution in `meta.solution`.
 * - `math500` (`problem`, `answer`, `solution`, `subject`, `level`, `unique_id`): id `unique_id`.
 * - `aime` (AIME 2024 / 2025 as published: `problem`/`Problem`, `answer`/`Answer`, `id`/`ID`; DAPO-format AIME rows
 *   are read as `dapo`).
 * - `dapo` (DAPO-Math-17k: `prompt[0].content` with the DAPO template, `reward_model.ground_truth`, `extra_info.index`).
 * - `openr1-dapo` (open-r1's processed DAPO-Math-17k: `prompt` as a string, `solution` the answer,
 *   else `reward_model.ground_truth`; `extra_info.index` or `source_prompt` kept in `meta`).
 * Other columns go to `meta`. Ids without an id column are `${preset}-${rowNumber}`.
 */
export function presetRowToExample(preset: DatasetPreset, row: Row, rowNumber: number): Example | null {
  const id = (v: string | undefined) => v ?? `${preset}-${rowNumber}`;
  switch (preset) {
    case 'gsm8k': {
      const question = field(row, 'question');
      const solution = field(row, 'answer');
      const answer = solution === undefined ? undefined : gsm8kFinalAnswer(solution);
      if (question === undefined || answer === undefined) return null;
      return { id: id(field(row, 'id')), question, answer, meta: { ...rest(row, ['id', 'question', 'answer']), solution } };
    }
    case 'math500': {
      const question = field(row, 'problem');
      const answer = field(row, 'answer');
      if (question === undefined || answer === undefined) return null;
      return { id: id(field(row, 'unique_id', 'id')), question, answer, meta: rest(row, ['unique_id', 'id', 'problem', 'answer']) };
    }
    case 'aime': {
      const question = field(row, 'problem', 'Problem', 'question');
      const answer = field(row, 'answer', 'Answer');
      if (question === undefined || answer === undefined) {
        const dapo = dapoRowToExample(row, rowNumber - 1);
        return dapo === null ? null : { ...dapo, id: `aime-${dapo.id}` };
      }
      return {
        id: id(field(row, 'id', 'ID')),
        question,
        answer: answer.trim(),
        meta: rest(row, ['id', 'ID', 'problem', 'Problem', 'question', 'answer', 'Answer']),
      };
    }
    case 'dapo':
      return dapoRowToExample(row, rowNumber - 1);
    case 'openr1-dapo': {
      const prompt = row['prompt'];
      const question = typeof prompt === 'string' ? stripDapoTemplate(prompt) : undefined;
      const rm = row['reward_model'];
      let gt: unknown = typeof rm === 'object' && rm !== null ? (rm as Row)['ground_truth'] : undefined;
      if (Array.isArray(gt)) gt = gt[0];
      const answer = field(row, 'solution') ?? (typeof gt === 'string' || typeof gt === 'number' ? String(gt) : undefined);
      if (!question || answer === undefined) return null;
      const extra = row['extra_info'];
      const index = typeof extra === 'object' && extra !== null ? (extra as Row)['index'] : undefined;
      return { id: id(index === undefined ? undefined : String(index)), question, answer: answer.trim(), meta: rest(row, ['prompt', 'solution']) };
    }
  }
}
