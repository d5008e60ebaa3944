import { utf8ByteLength } from '../platform/host.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const TRUNCATE_OPTIONS = optionKeys<TruncateOptions>({ maxBytes: true });

/** Marker put in front of an observation whose head was cut to fit the tool-response budget. */
export const TRUNCATION_MARKER = '[… output truncated …]\n';

/**
 * Bytes allowed per token of a tool-response budget before any token is counted: output is first cut to
 * `maxTokens × MAX_BYTES_PER_TOKEN` UTF-8 bytes, so a 200 KB tool output is never encoded whole. English text and
 * code take 3–5 bytes per token in BPE vocabularies, so the cut only bites output that could not fit anyway, except
 * long runs of one repeated character (which some vocabularies pack into very long tokens).
 */
export const MAX_BYTES_PER_TOKEN = 16;

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** UTF-8 length of `text` in bytes (a lone surrogate counts 3, as its U+FFFD replacement). */
export function utf8Bytes(text: string): number {
  return utf8ByteLength(text);
}

/** `i` moved forward when it would split a surrogate pair, so `text.slice(i)` starts on a code point. */
export function codePointStart(text: string, i: number): number {
  return i > 0 && i < text.length && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1)) ? i + 1 : i;
}

/** `i` moved back when it would split a surrogate pair, so `text.slice(0, i)` ends on a code point. */
export function codePointEnd(text: string, i: number): number {
  return i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i)) ? i - 1 : i;
}

function charBytes(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
}

/**
 * The longest tail of `text` that takes at most `maxBytes` UTF-8 bytes, starting on a code point (never a lone
 * surrogate). Work is proportional to what is kept, not to `text`'s length.
 */
export function tailBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = isLow(c) && i >= 2 && isHigh(text.charCodeAt(i - 2));
    const b = pair ? 4 : charBytes(c);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i -= pair ? 2 : 1;
  }
  return text.slice(i);
}

/** The longest head of `text` that takes at most `maxBytes` UTF-8 bytes, ending on a code point. */
export function headBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
    const b = pair ? 4 : charBytes(c);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** Options of {@link truncateTail}. */
export interface TruncateOptions {
  /** Byte cap applied before tokens are counted. @default maxTokens × {@link MAX_BYTES_PER_TOKEN} */
  readonly maxBytes?: number;
}

/**
 * Keeps the tail of `text` so that it fits `maxTokens` as counted by `countTokens` (tracebacks and final results
 * sit at the end), prefixing {@link TRUNCATION_MARKER} when cut. Cuts by bytes first (`maxBytes`, so huge output
 * is never tokenised whole), then by tokens with a binary search over the cut point (O(log n) counts on the
 * byte-cut text). Cuts fall on code-point boundaries: the result never holds a lone surrogate. Text that already
 * fits is returned unchanged (one token count).
 * Pass a `countTokens` that counts what the model will see (after special-token escaping, e.g. the renderer's
 * `countObservationTokens`).
 * @param maxTokens - budget in tokens, marker included; ≤ 0 yields `''`.
 */
export function truncateTail(text: string, maxTokens: number, countTokens: (s: string) => number, opts: TruncateOptions = {}): string {
  checkOptions('truncateTail options', TRUNCATE_OPTIONS, opts, { optional: true });
  if (maxTokens <= 0) return '';
  const maxBytes = opts.maxBytes ?? maxTokens * MAX_BYTES_PER_TOKEN;
  const pre = tailBytes(text, maxBytes);
  if (pre.length === text.length && countTokens(text) <= maxTokens) return text;
  let lo = 0;
  let hi = pre.length; // keep pre.slice(start); find the smallest start that fits
  let best = pre.length;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = codePointStart(pre, mid);
    if (countTokens(TRUNCATION_MARKER + pre.slice(start)) <= maxTokens) {
      best = start;
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  const kept = TRUNCATION_MARKER + pre.slice(best);
  return countTokens(kept) <= maxTokens ? kept : '';
}
