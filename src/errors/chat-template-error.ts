import { AgentRLError } from './base.js';

/**
 * The chat template failed to render (a Jinja error, or the template's own `raise_exception`, e.g.
 * roles out of order). The messages or template are wrong; retrying does not help.
 */
export class ChatTemplateError extends AgentRLError {
  static readonly code = 'CHAT_TEMPLATE_FAILED' as const;
  readonly code = 'CHAT_TEMPLATE_FAILED' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ChatTemplateError';
  }
}
