import { AgentRLError } from './base.js';

/** The chat template rewrote earlier history when a message was appended, so observation tokens cannot be spliced. */
export class TemplateRewriteError extends AgentRLError {
  /** Stable identifier of this error class (`'TEMPLATE_REWRITES_HISTORY'`), kept by minifiers: match on it. */
  readonly code = 'TEMPLATE_REWRITES_HISTORY' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string) {
    super(message);
    this.name = 'TemplateRewriteError';
  }
}

/** Tokenizer files are missing or inconsistent (e.g. no chat template, unknown special token). */
export class TokenizerError extends AgentRLError {
  /** Stable identifier of this error class (`'TOKENIZER_INVALID'`), kept by minifiers: match on it. */
  readonly code = 'TOKENIZER_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenizerError';
  }
}
