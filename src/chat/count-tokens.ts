import type { Renderer } from './types.js';

/**
 * Number of tokens `text` encodes to with `renderer`'s tokenizer (for budgets such as
 * `maxToolResponseTokens`). Encodes the whole string once; added tokens inside it count as one each.
 */
export function countTokens(renderer: Pick<Renderer, 'encode'>, text: string): number {
  return renderer.encode(text).length;
}
