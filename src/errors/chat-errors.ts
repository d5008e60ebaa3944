import { AgentRLError } from './base.js';
import { PromptPrefixError } from './data-errors.js';

/**
 * The chat template rewrote earlier history when a message was appended.
 * @deprecated The same class as {@link PromptPrefixError} (one error for the event, code `PROMPT_PREFIX_MISMATCH`;
 *   the former code `TEMPLATE_REWRITES_HISTORY` is gone); use that name.
 */
export const TemplateRewriteError = PromptPrefixError;
/** @deprecated The same type as {@link PromptPrefixError}; use that name. */
export type TemplateRewriteError = PromptPrefixError;

/** Tokenizer files are missing or inconsistent (e.g. no chat template, unknown special token). */
export class TokenizerError extends AgentRLError {
  static readonly code = 'TOKENIZER_INVALID' as const;
  readonly code = 'TOKENIZER_INVALID' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenizerError';
  }
}
