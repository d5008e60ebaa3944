import { AgentRLError } from './base.js';

/**
 * The math-equivalence worker pool could not start a worker (its module failed to load) or was
 * used after `close()`. A slow or crashing *check* is not an error: it comes back as
 * `status: 'timeout'` / `'error'`.
 */
export class MathWorkerError extends AgentRLError {
  static readonly code = 'MATH_WORKER_FAILED' as const;
  readonly code = 'MATH_WORKER_FAILED' as const;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MathWorkerError';
  }
}
