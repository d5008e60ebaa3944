import type { ParsedAction } from './action.js';
import type { ExecResult } from './exec-result.js';
import type { Message } from './message.js';
import type { Example } from './example.js';
import type { StopReason } from './sampling.js';

/**
 * One assistant turn, token-in token-out: the exact prompt the sampler saw and the exact
 * tokens/logprobs it returned. `promptTokens` of turn k+1 must extend
 * `promptTokens ++ completionTokens` of turn k (checked when building the datum).
 */
export interface Turn {
  /** The exact prompt token ids the sampler saw for this turn. */
  readonly promptTokens: readonly number[];
  /** The sampled token ids (the stop token included when present). */
  readonly completionTokens: readonly number[];
  /** Sampling logprobs, one per completion token (natural log). */
  readonly logprobs: readonly number[];
  /** Decoded completion text (for parsing and logs only; never re-encoded for training). */
  readonly text: string;
  /** Why sampling of this turn ended. */
  readonly stopReason: StopReason;
  /** What the completion was parsed as: a tool call, an answer, or an invalid action. */
  readonly action: ParsedAction;
  /** The environment's observation messages after this turn, if any. */
  readonly observation?: readonly Message[];
  /**
   * UTF-8 bytes of the environment's output for this turn before it was cut to the tool-response budget; the
   * trajectory keeps only what the model saw (`observation`) plus this size.
   */
  readonly observationBytes?: number;
  /** Sandbox result when the turn ran code (`stdout`/`stderr` capped to the tool-response budget's bytes). */
  readonly exec?: ExecResult;
  /** Tool execution wall time in ms (0 when no tool ran). */
  readonly toolMs?: number;
  /**
   * This turn opens a conversation of its own rather than continuing the turns before it (agentEnvironment: a model
   * call whose messages do not continue an earlier recorded call, e.g. a sub-agent's): it starts a new datum of the
   * same trajectory under every prefix-mismatch policy.
   */
  readonly newDatum?: boolean;
}

/**
 * Why a trajectory ended.
 * - `answer`: the model gave a final answer. `invalid`: malformed output.
 * - `max_tool_calls`, `max_turns`, `max_trajectory_tokens`, `max_turn_tokens`: a budget ran out.
 * - `env_done`: the environment ended the episode. `aborted`: the rollout was cancelled.
 * - `error`: something other than the model failed (a chat-template rewrite, `env.step` or `initialMessages`
 *   throwing, a sandbox crash, the sampler failing, a per-trajectory timeout); `Trajectory.error` says what.
 *   Such a trajectory is never scored or trained on; it is counted in `rollout/error_rate`.
 */
export type TrajectoryStopReason =
  | 'answer'
  | 'invalid'
  | 'max_tool_calls'
  | 'max_turns'
  | 'max_trajectory_tokens'
  | 'max_turn_tokens'
  | 'env_done'
  | 'aborted'
  | 'error';

/** Where a failed trajectory broke (`stopReason: 'error'`). */
export type TrajectoryErrorStage = 'initial_messages' | 'render' | 'sample' | 'parse' | 'env_step' | 'next_prompt' | 'timeout' | 'agent';

/** The cause of a trajectory that ended with `stopReason: 'error'`. */
export interface TrajectoryError {
  /** Which step of the rollout failed. */
  readonly stage: TrajectoryErrorStage;
  /** The thrown error's message. */
  readonly message: string;
  /** The thrown error's `code` (agentrl errors) or `name`. */
  readonly code?: string;
  /** Name of the environment the trajectory ran in. */
  readonly env?: string;
  /** The assistant turn (1-based) during or after which it broke. */
  readonly turn?: number;
  /** The thrown value itself (not serialisable; for logs and `RolloutFailedError.cause`). */
  readonly cause?: unknown;
}

/** A finished multi-turn episode for one example, one branch of its group. */
export interface Trajectory {
  /**
   * Unique within a step: `${exampleId}/${groupIndex}`; when the same example appears k > 0 times earlier in the
   * batch, `${exampleId}@${k}/${groupIndex}`.
   */
  readonly id: string;
  /** The dataset example this trajectory answers. */
  readonly example: Example;
  /** Index of this branch within its group, 0 ≤ groupIndex < groupSize. */
  readonly groupIndex: number;
  /** The whole conversation: initial messages, then every assistant turn and observation. */
  readonly messages: readonly Message[];
  /** The assistant turns, token-level, in order. */
  readonly turns: readonly Turn[];
  /** Why the trajectory ended. */
  readonly stopReason: TrajectoryStopReason;
  /** Number of tool calls that were executed. */
  readonly toolCalls: number;
  /** Final assistant text (what the reward scores). */
  readonly finalText: string;
  /**
   * Weights version of the sampler this trajectory was sampled with (optimizer steps applied before it), set by the
   * Trainer; with `async.maxStaleness > 0` it may be older than the weights the update is applied to.
   */
  readonly weightsVersion?: number;
  /** Set when `stopReason` is `'error'`. */
  readonly error?: TrajectoryError;
  /** What the agent's `run()` returned (agentEnvironment): its final answer or state, for the reward. */
  readonly agentOutput?: unknown;
}
