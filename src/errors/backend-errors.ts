import { AgentRLError } from './base.js';

/** Input a backend cannot accept: a token id outside the vocabulary, a sequence longer than the context, an empty batch. */
export class BackendInputError extends AgentRLError {
  readonly code = 'BACKEND_INPUT' as const;
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'BackendInputError';
  }
}

/** A checkpoint could not be saved or loaded. */
export class CheckpointError extends AgentRLError {
  readonly code = 'CHECKPOINT' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CheckpointError';
  }
}
