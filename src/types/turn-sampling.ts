import type { RolloutBudgets, RolloutSampling } from './rollout.js';
import type { SamplingParams } from './sampling.js';

/**
 * How one turn of a rollout is sampled: its token limit (the turn clamp) and the parameters of its sampling call.
 * The one place both are computed, for the engine's group fork and later turns (`rollout/`) and for a driven
 * environment's recorded calls (`env/agent/`).
 */

/** The token limit of one turn ({@link turnTokenLimit}). */
export interface TurnTokenLimit {
  /** New tokens the turn may sample: `min(asked, maxTurnTokens, room)`. Below 1 when there is no room. */
  readonly maxTokens: number;
  /** Tokens left in the trajectory budget after the prompt: `maxTrajectoryTokens − promptTokens`. */
  readonly room: number;
  /**
   * True when the room left, not `maxTurnTokens`, bounds the turn: a turn cut at its limit then ends the trajectory
   * as `max_trajectory_tokens` rather than `max_turn_tokens`.
   */
  readonly limitedByRoom: boolean;
}

/**
 * The turn clamp: how many new tokens a turn whose prompt has `promptTokens` tokens may sample under `budgets`,
 * `min(asked, maxTurnTokens, maxTrajectoryTokens − promptTokens)`.
 * @param asked - the caller's own limit (an agent's `max_tokens`). @default Infinity
 */
export function turnTokenLimit(
  budgets: Pick<RolloutBudgets, 'maxTurnTokens' | 'maxTrajectoryTokens'>,
  promptTokens: number,
  asked = Number.POSITIVE_INFINITY,
): TurnTokenLimit {
  const room = budgets.maxTrajectoryTokens - promptTokens;
  return { maxTokens: Math.min(asked, budgets.maxTurnTokens, room), room, limitedByRoom: room < budgets.maxTurnTokens };
}

/**
 * The parameters of one sampling call of a rollout: the rollout's temperature (default 1), top-p (default 1) and
 * top-k (when set), with this call's sample count, token limit ({@link turnTokenLimit}), stop tokens, seed and
 * signal. An agent's own temperature or top-p is never used: the learner's logprobs assume the rollout's.
 * @param call.seed - this call's derived seed; omitted for fresh randomness.
 * @param call.stop - stop token ids (the renderer's, or an endpoint's request's); omitted when undefined.
 * @param call.topLogprobs - alternatives per position to return (an endpoint's request's); omitted when 0 or undefined.
 */
export function turnSamplingParams(
  sampling: RolloutSampling | undefined,
  call: {
    readonly numSamples: number;
    readonly maxTokens: number;
    readonly stop: readonly number[] | undefined;
    readonly seed: number | undefined;
    readonly signal: AbortSignal;
    readonly topLogprobs?: number | undefined;
  },
): SamplingParams {
  return {
    numSamples: call.numSamples,
    maxTokens: call.maxTokens,
    temperature: sampling?.temperature ?? 1,
    topP: sampling?.topP ?? 1,
    ...(sampling?.topK !== undefined ? { topK: sampling.topK } : {}),
    ...(call.stop ? { stop: call.stop } : {}),
    ...(call.topLogprobs ? { topLogprobs: call.topLogprobs } : {}),
    ...(call.seed !== undefined ? { seed: call.seed } : {}),
    signal: call.signal,
  };
}
