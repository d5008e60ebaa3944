import { AgentRLError } from './base.js';

/**
 * A rollout failed under the `fail_fast` failure strategy (or the `fail` prefix-mismatch policy): the step's other
 * rollouts were aborted and awaited before this was thrown, so nothing of the step keeps running.
 * `trajectoryId` names the first trajectory that failed, `env` and `turn` where; `cause` is the error it threw.
 */
export class RolloutFailedError extends AgentRLError {
  /** Stable identifier of this error class (`'ROLLOUT_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'ROLLOUT_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'ROLLOUT_FAILED' as const;
  /** Name of the environment the trajectory ran in, when known. */
  readonly env: string | undefined;
  /** The assistant turn (1-based) during or after which it broke, when known. */
  readonly turn: number | undefined;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** Id of the trajectory concerned. */
    readonly trajectoryId: string,
    /** The rollout stage that failed (a `TrajectoryErrorStage`, or `unknown`). */
    readonly stage: string,
    options?: ErrorOptions & { env?: string; turn?: number },
  ) {
    const cause = options?.cause;
    const where = [options?.env !== undefined ? `in env '${options.env}'` : '', options?.turn !== undefined ? `turn ${options.turn}` : '']
      .filter(Boolean)
      .join(', ');
    super(`rollout ${trajectoryId}${where ? ` (${where})` : ''} failed at ${stage}: ${cause instanceof Error ? cause.message : String(cause)}`, options);
    this.env = options?.env;
    this.turn = options?.turn;
    this.name = 'RolloutFailedError';
  }
}

/** The {@link RolloutFailedError} for a failed trajectory (its id, stage, environment, turn and cause). */
export function rolloutFailedError(t: {
  readonly id: string;
  readonly error?: { readonly stage?: string; readonly message?: string; readonly cause?: unknown; readonly env?: string; readonly turn?: number };
}): RolloutFailedError {
  const e = t.error;
  return new RolloutFailedError(t.id, e?.stage ?? 'unknown', {
    cause: e?.cause ?? e?.message,
    ...(e?.env !== undefined ? { env: e.env } : {}),
    ...(e?.turn !== undefined ? { turn: e.turn } : {}),
  });
}
