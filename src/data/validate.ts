import type { ConfigIssue } from '../errors/config-error.js';

/**
 * Checks rows meant as {@link Example}s: each must be an object with a non-empty string `id`, a string `question`
 * and a string `answer`, and ids must be unique. Row numbers are 1-based (the first row is row 1).
 * @returns one issue per problem (empty when all rows are fine); `path` is `where` (e.g. `dataset`).
 */
export function exampleIssues(rows: readonly unknown[], where: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const firstRowOf = new Map<string, number>();
  rows.forEach((row, i) => {
    const n = i + 1;
    if (typeof row !== 'object' || row === null) {
      issues.push({ path: where, message: `row ${n}: expected an Example { id, question, answer }, got ${row === null ? 'null' : typeof row}` });
      return;
    }
    const r = row as Record<string, unknown>;
    const problems: string[] = [];
    if (typeof r['id'] !== 'string' || r['id'] === '')
      problems.push(r['id'] === undefined ? "missing 'id'" : `'id' must be a non-empty string, got ${JSON.stringify(r['id'])}`);
    if (typeof r['question'] !== 'string')
      problems.push(r['question'] === undefined ? "missing 'question'" : `'question' must be a string, got ${typeof r['question']}`);
    if (typeof r['answer'] !== 'string') problems.push(r['answer'] === undefined ? "missing 'answer'" : `'answer' must be a string, got ${typeof r['answer']}`);
    if (problems.length > 0)
      issues.push({ path: where, message: `row ${n}${typeof r['id'] === 'string' && r['id'] ? ` (id '${r['id']}')` : ''}: ${problems.join(', ')}` });
    if (typeof r['id'] === 'string' && r['id'] !== '') {
      const first = firstRowOf.get(r['id']);
      if (first !== undefined) issues.push({ path: where, message: `row ${n}: duplicate id '${r['id']}' (first used by row ${first})` });
      else firstRowOf.set(r['id'], n);
    }
  });
  return issues;
}
