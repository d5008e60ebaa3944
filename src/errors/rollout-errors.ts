import { AgentRLError } from './base.js';

/**
 * A rollout failed under the `fail_fast` failure strategy (or the `fail` prefix-mismatch policy): the step's other
 * rollouts were aborted and awaited before this was thrown, so nothing of the step keeps running.
 * `trajectoryId` names the first trajectory that failed; `cause` is the error it threw.
 */
export class RolloutFailedError extends AgentRLError {
  readonly code = 'ROLLOUT_FAILED' as const;
  constructor(
    readonly trajectoryId: string,
    readonly stage: string,
    options?: ErrorOptions,
  ) {
    const cause = options?.cause;
    super(`rollout ${trajectoryId} failed at ${stage}: ${cause instanceof Error ? cause.message : String(cause)}`, options);
    this.name = 'RolloutFailedError';
  }
}
