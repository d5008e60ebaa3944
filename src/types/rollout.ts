import type { ExecStatus } from './exec-result.js';
import type { ParsedAction } from './action.js';
import type { SamplingSettings } from './sampling.js';

/**
 * Per-trajectory budgets (the ReTool recipe's `RolloutConfig`, KMnO4-zx/agentic-rl-lab `05-retool/rollout.py`). All
 * token counts are in tokens of the model's tokenizer.
 * A trajectory that would exceed one ends cleanly with the matching `TrajectoryStopReason`.
 */
export interface RolloutBudgets {
  /** Tool calls executed per trajectory. @default 4 */
  readonly maxToolCalls: number;
  /** Assistant turns per trajectory. @default 6 */
  readonly maxTurns: number;
  /** Prompt + all completions + observations. @default 8192 */
  readonly maxTrajectoryTokens: number;
  /** New tokens per assistant turn. @default 1024 */
  readonly maxTurnTokens: number;
  /** Tokens of one tool observation (tail-truncated beyond). @default 512 */
  readonly maxToolResponseTokens: number;
}

/** Default budgets, as in the README's quick start (ReTool-sized: 4 tool calls, 6 turns, 8,192 tokens a trajectory). Frozen. */
export const DEFAULT_BUDGETS: RolloutBudgets = Object.freeze({
  maxToolCalls: 4,
  maxTurns: 6,
  maxTrajectoryTokens: 8192,
  maxTurnTokens: 1024,
  maxToolResponseTokens: 512,
});

/**
 * Sampling of every turn of a rollout: the distribution ({@link SamplingSettings}, the one definition of temperature,
 * top-p and top-k) and the rollout's base seed. The seed is not part of `SamplingSettings` because the learner never
 * needs it and the Trainer derives it from its own `seed` and the step.
 */
export interface RolloutSampling extends SamplingSettings {
  /** Base seed; each call derives its own from it. Omit for fresh randomness. */
  readonly seed?: number;
}

/** Payload of the `turn` event: one assistant turn and its tool call/result. */
export interface TurnEvent {
  /** Id of the trajectory this turn belongs to. */
  readonly trajectoryId: string;
  /** Branch index within the group, 0-based. */
  readonly groupIndex: number;
  /** Index of the turn within its trajectory, 0-based. */
  readonly turnIndex: number;
  /** What the turn was parsed as: `tool`, `answer` or `invalid`. */
  readonly action: ParsedAction['kind'];
  /** Why the turn was invalid, when it was. */
  readonly invalidReason?: string;
  /** Tokens sampled in this turn. */
  readonly completionTokens: number;
  /** Tool calls the turn made (0 for an answer or an invalid turn; more than 1 only with parallel tool calls). */
  readonly toolCalls: number;
  /** Status of the sandbox run, when the turn executed code. */
  readonly execStatus?: ExecStatus;
  /** Tool wall time in ms (0 when no tool ran). */
  readonly toolMs: number;
}
