/** Marker put in front of an observation whose head was cut to fit the tool-response budget. */
export const TRUNCATION_MARKER = '[… output truncated …]\n';

/**
 * Keeps the tail of `text` so that it fits `maxTokens` as counted by `countTokens`
 * (tracebacks and final results sit at the end), prefixing {@link TRUNCATION_MARKER} when cut.
 * Binary search over the cut point: O(log n) token counts. Text that already fits is returned unchanged.
 * @param maxTokens - budget in tokens, marker included; ≤ 0 yields `''`.
 */
export function truncateTail(text: string, maxTokens: number, countTokens: (s: string) => number): string {
  if (maxTokens <= 0) return '';
  if (countTokens(text) <= maxTokens) return text;
  // Pre-cut very long text by characters first (a token is at least one character in every tokenizer we support).
  let lo = Math.max(0, text.length - maxTokens * 8);
  let hi = text.length; // keep text.slice(start); find the smallest start that fits
  let best = text.length;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = TRUNCATION_MARKER + text.slice(mid);
    if (countTokens(candidate) <= maxTokens) {
      best = mid;
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  const kept = TRUNCATION_MARKER + text.slice(best);
  return countTokens(kept) <= maxTokens ? kept : '';
}
