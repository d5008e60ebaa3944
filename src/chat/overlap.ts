/**
 * Length of the longest suffix of `tokens` that is also a prefix of `closing`
 * (the ReTool recipe's `_suffix_prefix_overlap`, KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`). Used to skip the
 * part of the template's assistant closing
 * (e.g. `<|im_end|>`) that the model already sampled as its stop token.
 *
 * @param tokens - the sampled completion, token ids.
 * @param closing - the template's closing tokens after an assistant message, e.g. `[151645, 198]`.
 * @returns k in `[0, min(tokens.length, closing.length)]`.
 */
export function suffixPrefixOverlap(tokens: readonly number[], closing: readonly number[]): number {
  const max = Math.min(tokens.length, closing.length);
  for (let k = max; k > 0; k--) {
    let ok = true;
    const start = tokens.length - k;
    for (let i = 0; i < k; i++) {
      if (tokens[start + i] !== closing[i]) {
        ok = false;
        break;
      }
    }
    if (ok) return k;
  }
  return 0;
}
