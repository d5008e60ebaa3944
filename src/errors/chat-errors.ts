import { AgentRLError } from './base.js';
import { PromptPrefixError } from './data-errors.js';

/**
 * The chat template rewrote earlier history when a message was appended: the former name of {@link PromptPrefixError}.
 * @deprecated The same class as {@link PromptPrefixError} (one error for the event, code `PROMPT_PREFIX_MISMATCH`;
 *   the former code `TEMPLATE_REWRITES_HISTORY` is gone); use that name.
 */
export const TemplateRewriteError = PromptPrefixError;
/**
 * Instances of {@link TemplateRewriteError}: the former name of the {@link PromptPrefixError} type.
 * @deprecated The same type as {@link PromptPrefixError}; use that name.
 */
export type TemplateRewriteError = PromptPrefixError;

/** Tokenizer files are missing or inconsistent (e.g. no chat template, unknown special token). */
export class TokenizerError extends AgentRLError {
  /** Stable identifier of this error class (`'TOKENIZER_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'TOKENIZER_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'TOKENIZER_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenizerError';
  }
}
