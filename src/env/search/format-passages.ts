import type { Passage } from './types.js';

/** Observation text when a query matched nothing. */
export const NO_RESULTS_TEXT = 'No results found.';

/**
 * Formats ranked passages the way Search-R1 shows them (`_passages2string`), one per line:
 * `Doc 1 (Title: Paris) Paris is the capital …`. Newlines inside a passage become spaces.
 * An empty list gives {@link NO_RESULTS_TEXT}.
 */
export function formatPassages(passages: readonly Passage[]): string {
  if (passages.length === 0) return NO_RESULTS_TEXT;
  return passages
    .map((p, i) => `Doc ${i + 1} (Title: ${p.title}) ${p.text.replace(/\s*\n\s*/g, ' ').trim()}`)
    .join('\n');
}
