import { AgentRLError } from './base.js';

/**
 * Why a judgement failed:
 * - `no_verdict`: the judge's final answer (after its reasoning) holds no verdict-shaped JSON object;
 * - `invalid_verdict`: its last verdict does not fit the rubric's schema (a score outside [0, 1], a missing or
 *   repeated id, a score that is not a number);
 * - `call_failed`: the judge could not be asked (an HTTP error status, a refused redirect, a reply over the size
 *   limit, no sequence from the sampler);
 * - `unsafe_prompt`: the judged text would have put control tokens into the judge's chat template;
 * - `timeout`: no usable judgement within the judgement's `timeoutMs`.
 */
export type JudgeFailureReason = 'no_verdict' | 'invalid_verdict' | 'call_failed' | 'unsafe_prompt' | 'timeout';

/**
 * A judgement of `judgeReward` gave no usable verdict after every attempt. Never a score: the samples it was for are
 * dropped (`failure: 'reward_error'`, counted in `reward/dropped` and `JudgeStats.failures`). `cause` holds the last
 * underlying error, when there was one.
 */
export class JudgeError extends AgentRLError {
  /** Stable identifier of this error class (`'JUDGE_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'JUDGE_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'JUDGE_FAILED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** What went wrong on the last attempt (or `timeout`). */
    readonly reason: JudgeFailureReason,
    /** Judge calls made for this judgement. */
    readonly attempts: number,
    /** The last problem, in words (what was fed back to the judge). */
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`judge failed after ${attempts} attempt(s) (${reason}): ${problem}`, options);
    this.name = 'JudgeError';
  }
}
