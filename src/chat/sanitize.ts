/**
 * The character {@link sanitizeToolContent} inserts to defuse special-token strings: U+200B ZERO WIDTH SPACE.
 * Chosen because it is invisible when the text is shown to a person, survives NFC/NFKC normalisation,
 * and appears in no added token, so `<\u200B|im_end|>` can only tokenise as plain text.
 */
export const SANITIZE_MARK = '\u200B';

/**
 * Makes tool output unable to encode to control tokens. Every occurrence of a special-token string
 * (`<|im_end|>`, `<|im_start|>`, `<tool_call>`, `</tool_response>`, … — pass all added tokens of the
 * tokenizer) gets {@link SANITIZE_MARK} inserted after its first character, so the tokenizer's
 * added-token matcher can no longer see it. Overlapping occurrences are handled by repeating until none
 * is left (inserting the mark can never create a new occurrence). Text without special strings is
 * returned unchanged (same string).
 *
 * Tokens shorter than 2 characters cannot be split and are ignored.
 * Hazard guarded: a program that prints `<|im_end|>` would otherwise end the user turn inside the
 * observation and corrupt the trajectory (`test/chat/overlap-sanitize.test.ts`).
 *
 * @param text - raw tool output.
 * @param specialTokens - token strings to defuse (e.g. the renderer's `specialTokens`).
 * @returns the text with every special-token string broken by a zero-width space.
 */
export function sanitizeToolContent(text: string, specialTokens: readonly string[]): string {
  const needles = [...new Set(specialTokens)].filter((t) => t.length >= 2 && !t.includes(SANITIZE_MARK));
  if (needles.length === 0) return text;
  needles.sort((a, b) => b.length - a.length);
  const pattern = new RegExp(needles.map(escapeRegExp).join('|'), 'g');
  let out = text;
  // Each pass breaks at least one occurrence and creates none, so this terminates.
  for (;;) {
    pattern.lastIndex = 0;
    if (!pattern.test(out)) return out;
    pattern.lastIndex = 0;
    out = out.replace(pattern, (m) => m.slice(0, 1) + SANITIZE_MARK + m.slice(1));
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
