import type { Example } from '../types/example.js';

const DAPO_PREFIX =
  /^\s*Solve the following math problem step by step\.\s*The last line of your response should be of the form Answer:\s*\$Answer\s*\(without quotes\)\s*where\s*\$Answer\s*is the answer to the problem\.\s*/i;
const DAPO_SUFFIX = /\s*Remember to put your answer on its own line after\s*["“]?Answer:?["”]?\s*\.?\s*$/i;

/**
 * Removes DAPO-Math-17k's answer template (`… of the form Answer: $Answer …` before the problem and
 * `Remember to put your answer on its own line after "Answer:"` after it), which conflicts with
 * ReTool's `\boxed{}` convention. Text without the template is returned trimmed and otherwise unchanged.
 * @see KMnO4-zx/agentic-rl-lab `05-retool/prepare_data.py` (`strip_dapo_template`).
 */
export function stripDapoTemplate(content: string): string {
  return content.replace(DAPO_PREFIX, '').replace(DAPO_SUFFIX, '').trim();
}

/**
 * One DAPO-Math style row → {@link Example}, or `null` when it lacks a question or an answer
 * (seed `normalize_row`): question = `prompt[0].content` without the template, answer =
 * `reward_model.ground_truth` (first element when a list), id = `extra_info.index` or the row index;
 * `meta` = the `extra_info` fields plus `dataSource`.
 */
export function dapoRowToExample(row: unknown, index: number): Example | null {
  if (typeof row !== 'object' || row === null) return null;
  const r = row as Record<string, unknown>;
  const prompt = r['prompt'];
  if (!Array.isArray(prompt) || prompt.length === 0) return null;
  const first = prompt[0] as Record<string, unknown> | null;
  const question = stripDapoTemplate(String(first?.['content'] ?? ''));
  const rm = r['reward_model'];
  let gt: unknown = typeof rm === 'object' && rm !== null ? (rm as Record<string, unknown>)['ground_truth'] : undefined;
  if (Array.isArray(gt)) gt = gt[0];
  const answer = String(gt ?? '').trim();
  if (!question || !answer) return null;
  const extra = r['extra_info'];
  const extraIndex = typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>)['index'] : undefined;
  const id = String(extraIndex ?? index);
  const extraFields = typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : {};
  return { id, question, answer, meta: { ...extraFields, dataSource: String(r['data_source'] ?? 'dapo_math') } };
}
