import type { Renderer } from './types.js';

/** One token of {@link tokenize}: its id and the text it stands for. */
export interface TokenPiece {
  /** Token id in the renderer's vocabulary. */
  readonly id: number;
  /** `renderer.decode([id])`; a piece that is part of a multi-byte character decodes to `�`. */
  readonly text: string;
}

/**
 * Splits `text` into the tokens the model sees (`renderer.encode`, no BOS/EOS), each with its text — to check which of
 * a task's words are single tokens before writing demonstrations: a tiny model copies a one-token value from the
 * question into a tool call far sooner than one it must spell piece by piece.
 * ```ts
 * tokenize(await backend.renderer(), 'Peru Lisbon 1234').map((p) => p.text);  // embedded model: ['Peru', ' ', 'Lisbo', 'n', ' ', '12', '34']
 * ```
 */
export function tokenize(renderer: Pick<Renderer, 'encode' | 'decode'>, text: string): TokenPiece[] {
  return renderer.encode(text).map((id) => ({ id, text: renderer.decode([id]) }));
}
