import type { Passage } from './types.js';
import { isSpaceCode } from '../../util/is-space.js';

/** Observation text when a query matched nothing. */
export const NO_RESULTS_TEXT = 'No results found.';

/**
 * `text` with every run of whitespace that contains a newline replaced by one space (what
 * `text.replace(/\s*\n\s*\/g, ' ')` does, in linear time: that pattern rescans a long run of spaces from each of its
 * characters, quadratic in the run's length).
 */
export function joinLines(text: string): string {
  if (!text.includes('\n')) return text;
  let out = '';
  let kept = 0;
  let i = 0;
  while (i < text.length) {
    if (!isSpaceCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const runStart = i;
    let newline = false;
    for (; i < text.length && isSpaceCode(text.charCodeAt(i)); i++) if (text[i] === '\n') newline = true;
    if (newline) {
      out += text.slice(kept, runStart) + ' ';
      kept = i;
    }
  }
  return out + text.slice(kept);
}

/**
 * Formats ranked passages the way Search-R1 shows them (`_passages2string`), one per line:
 * `Doc 1 (Title: Paris) Paris is the capital …`. Newlines inside a passage become spaces ({@link joinLines}).
 * An empty list gives {@link NO_RESULTS_TEXT}. Linear in the passages' length.
 */
export function formatPassages(passages: readonly Passage[]): string {
  if (passages.length === 0) return NO_RESULTS_TEXT;
  return passages.map((p, i) => `Doc ${i + 1} (Title: ${p.title}) ${joinLines(p.text).trim()}`).join('\n');
}
