import { AgentRLError } from './base.js';

/**
 * The chat template failed to render (a Jinja error, or the template's own `raise_exception`, e.g.
 * roles out of order). The messages or template are wrong; retrying does not help.
 */
export class ChatTemplateError extends AgentRLError {
  /** Stable identifier of this error class (`'CHAT_TEMPLATE_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'CHAT_TEMPLATE_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'CHAT_TEMPLATE_FAILED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ChatTemplateError';
  }
}
