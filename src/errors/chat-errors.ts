import { AgentRLError } from './base.js';

/** The chat template rewrote earlier history when a message was appended, so observation tokens cannot be spliced. */
export class TemplateRewriteError extends AgentRLError {
  readonly code = 'TEMPLATE_REWRITES_HISTORY' as const;
  constructor(message: string) {
    super(message);
    this.name = 'TemplateRewriteError';
  }
}

/** Tokenizer files are missing or inconsistent (e.g. no chat template, unknown special token). */
export class TokenizerError extends AgentRLError {
  readonly code = 'TOKENIZER_INVALID' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenizerError';
  }
}
