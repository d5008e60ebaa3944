import type { Environment } from '../env/types.js';
import type { Renderer } from '../chat/types.js';
import type { SamplingClient } from '../backend/types.js';
import type { ExecStatus } from '../types/exec-result.js';
import type { ParsedAction } from '../types/action.js';

/**
 * Per-trajectory budgets (ReTool seed §8.4.2). All token counts are in tokens of the model's tokenizer.
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

/** Default budgets, as in DESIGN.md's example. */
export const DEFAULT_BUDGETS: RolloutBudgets = {
  maxToolCalls: 4,
  maxTurns: 6,
  maxTrajectoryTokens: 8192,
  maxTurnTokens: 1024,
  maxToolResponseTokens: 512,
};

/** Sampling settings shared by every turn of a rollout. */
export interface RolloutSampling {
  /** @default 1 */
  readonly temperature?: number;
  /** @default 1 */
  readonly topP?: number;
  readonly topK?: number;
  /** Base seed; each call derives its own from it. Omit for fresh randomness. */
  readonly seed?: number;
}

/** Payload of the `turn` event: one assistant turn and its tool call/result. */
export interface TurnEvent {
  readonly trajectoryId: string;
  readonly groupIndex: number;
  readonly turnIndex: number;
  readonly action: ParsedAction['kind'];
  readonly invalidReason?: string;
  readonly completionTokens: number;
  readonly execStatus?: ExecStatus;
  /** Tool wall time in ms (0 when no tool ran). */
  readonly toolMs: number;
}

/** Everything a rollout needs. */
export interface RolloutContext {
  readonly sampler: SamplingClient;
  readonly renderer: Renderer;
  readonly env: Environment;
  readonly budgets: RolloutBudgets;
  readonly sampling?: RolloutSampling;
  /** Extra chat-template variables (e.g. `{ enable_thinking: false }`). */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
  readonly onTurn?: (e: TurnEvent) => void;
}
