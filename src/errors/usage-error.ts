import { AgentRLError } from './base.js';

/**
 * A command line the `agentrl` CLI cannot run: an unknown or missing flag or argument, or a flag value of the wrong
 * form (`--port eighty`). Every command prints the message with its usage text and exits with code 2. Also thrown by a
 * sandbox adapter's `optionsFromFlags` for a malformed flag value.
 */
export class UsageError extends AgentRLError {
  /** Stable identifier of this error class (`'USAGE_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'USAGE_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'USAGE_INVALID' as const;
  /** Creates the error; `message` names the flag and the value received, e.g. `--port expects …, got 'x'`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UsageError';
  }
}
