import { codePointEnd, headBytes, MAX_BYTES_PER_TOKEN } from '../truncate.js';

/** Marker appended to an observation whose end was cut to fit the tool-response budget. */
export const HEAD_TRUNCATION_MARKER = '\n[… truncated …]';

/**
 * Largest `n` in `[0, count]` such that `render(n)` fits `maxTokens` (binary search: O(log count) token counts).
 * Assumes `render` grows with `n`. Used to drop whole passages or table rows rather than cutting one in half.
 */
export function fitCount(count: number, render: (n: number) => string, maxTokens: number, countTokens: (s: string) => number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (countTokens(render(mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Keeps the head of `text` so that it fits `maxTokens`, appending {@link HEAD_TRUNCATION_MARKER} when cut
 * (search results and query rows are ranked, so the start matters most; cf. `truncateTail` for program output).
 * Cuts by bytes first, then by tokens, on code-point boundaries.
 * Text that already fits is returned unchanged; ≤ 0 tokens yields `''`.
 */
export function truncateHead(text: string, maxTokens: number, countTokens: (s: string) => number): string {
  if (maxTokens <= 0) return '';
  // Cut by bytes first, so huge output is never tokenised whole (see MAX_BYTES_PER_TOKEN).
  const pre = headBytes(text, maxTokens * MAX_BYTES_PER_TOKEN);
  if (pre.length === text.length && countTokens(text) <= maxTokens) return text;
  // Cut points fall on code points (never a lone surrogate).
  const n = codePointEnd(
    pre,
    fitCount(pre.length, (k) => pre.slice(0, codePointEnd(pre, k)) + HEAD_TRUNCATION_MARKER, maxTokens, countTokens),
  );
  const kept = pre.slice(0, n) + HEAD_TRUNCATION_MARKER;
  return countTokens(kept) <= maxTokens ? kept : '';
}
