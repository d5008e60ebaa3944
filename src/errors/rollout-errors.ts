import { AgentRLError } from './base.js';

/**
 * A rollout failed under the `fail_fast` failure strategy (or the `fail` prefix-mismatch policy): the step's other
 * rollouts were aborted and awaited before this was thrown, so nothing of the step keeps running.
 * `trajectoryId` names the first trajectory that failed, `env` and `turn` where; `cause` is the error it threw.
 */
export class RolloutFailedError extends AgentRLError {
  readonly code = 'ROLLOUT_FAILED' as const;
  /** Name of the environment the trajectory ran in, when known. */
  readonly env: string | undefined;
  /** The assistant turn (1-based) during or after which it broke, when known. */
  readonly turn: number | undefined;
  constructor(
    readonly trajectoryId: string,
    readonly stage: string,
    options?: ErrorOptions & { env?: string; turn?: number },
  ) {
    const cause = options?.cause;
    const where = [options?.env !== undefined ? `in env '${options.env}'` : '', options?.turn !== undefined ? `turn ${options.turn}` : ''].filter(Boolean).join(', ');
    super(`rollout ${trajectoryId}${where ? ` (${where})` : ''} failed at ${stage}: ${cause instanceof Error ? cause.message : String(cause)}`, options);
    this.env = options?.env;
    this.turn = options?.turn;
    this.name = 'RolloutFailedError';
  }
}
