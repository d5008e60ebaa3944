import { AgentRLError } from './base.js';

/**
 * The math-equivalence worker pool could not start a worker (its module failed to load) or was
 * used after `close()`. A slow or crashing *check* is not an error: it comes back as
 * `status: 'timeout'` / `'error'`.
 */
export class MathWorkerError extends AgentRLError {
  /** Stable identifier of this error class (`'MATH_WORKER_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'MATH_WORKER_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'MATH_WORKER_FAILED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MathWorkerError';
  }
}
