import type { Environment } from '../env/types.js';
import type { Renderer } from '../chat/types.js';
import type { SamplingClient } from '../backend/types.js';
import type { ExecStatus } from '../types/exec-result.js';
import type { ParsedAction } from '../types/action.js';
import type { Trajectory } from '../types/trajectory.js';
import type { Example } from '../types/example.js';
import type { SamplingSettings } from '../types/sampling.js';
import type { PrefixMismatchPolicy } from '../types/prefix-mismatch.js';

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

/** Default budgets, as in the README's quick start (ReTool-sized: 4 tool calls, 6 turns, 8,192 tokens a trajectory). */
export const DEFAULT_BUDGETS: RolloutBudgets = {
  maxToolCalls: 4,
  maxTurns: 6,
  maxTrajectoryTokens: 8192,
  maxTurnTokens: 1024,
  maxToolResponseTokens: 512,
};

/**
 * Sampling of every turn of a rollout: the distribution ({@link SamplingSettings}, the one definition of temperature,
 * top-p and top-k) and the rollout's base seed. The seed is not part of `SamplingSettings` because the learner never
 * needs it and the Trainer derives it from its own `seed` and the step.
 */
export interface RolloutSampling extends SamplingSettings {
  /** Base seed; each call derives its own from it. Omit for fresh randomness. */
  readonly seed?: number;
}

/**
 * What the rollout engine does when a trajectory fails (`stopReason: 'error'`: a throwing `env.step`,
 * `initialMessages` or chat-template rewrite, a sampler failure, a per-trajectory timeout). Model mistakes are
 * never failures (they end as `invalid`).
 * - `drop` (default): the failed trajectory ends with its cause and is left out of training; the rest go on.
 * - `retry`: a failed trajectory is rolled out again from its group's prompt (a fresh first sample), up to
 *   `maxRetries` times per trajectory; if it still fails it is dropped like `drop`.
 * - `fail_fast`: the first failure aborts every other rollout of the call, waits for them to end, and rejects
 *   with `RolloutFailedError` (for debugging an environment).
 * `minSurvivors` (drop/retry): the Trainer keeps a group only when at least this many of its trajectories
 * survived (not failed, not dropped by the reward); fewer and the whole group is dropped and counted.
 * Modelled on tinker-cookbook's rollout strategies (fail fast / retry on failure).
 */
export type RolloutFailureStrategy =
  | { readonly kind: 'drop'; readonly minSurvivors?: number }
  | { readonly kind: 'retry'; readonly maxRetries: number; readonly minSurvivors?: number }
  | { readonly kind: 'fail_fast' };

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

/** Which group `runGroup` rolls out: `groupSize` trajectories of one example. */
export interface RunGroupOptions {
  /** The example every branch of the group answers. */
  readonly example: Example;
  /** Trajectories in the group (G, at least 1). */
  readonly groupSize: number;
  /** The group's index within its batch, mixed into the group's sampling seed (`sampling.seed`), so groups of one batch sample differently. @default 0 */
  readonly groupSeedIndex?: number;
  /** Prefix of the trajectory ids (`${groupKey}/${g}`). @default example.id */
  readonly groupKey?: string;
}

/** Everything a rollout needs. */
export interface RolloutContext {
  /** Samples each turn (the current policy). */
  readonly sampler: SamplingClient;
  /** Renders prompts and parses completions (the policy's chat template). */
  readonly renderer: Renderer;
  /** The environment every trajectory runs in. */
  readonly env: Environment;
  /** Per-trajectory budgets, every one set (see `DEFAULT_BUDGETS`). */
  readonly budgets: RolloutBudgets;
  /** Sampling settings of every turn. */
  readonly sampling?: RolloutSampling;
  /** What to do when a trajectory fails. @default `{ kind: 'drop' }` */
  readonly failure?: RolloutFailureStrategy;
  /**
   * What to do when the chat template rewrites earlier history once an observation is appended, so the next prompt
   * cannot extend the sampled tokens (`PromptPrefixError` from `renderer.nextPrompt`): see {@link PrefixMismatchPolicy}.
   * Under `'split'` the next prompt is re-rendered from the messages (`renderPrompt`), so build the datums with
   * `onPrefixMismatch: 'split'` too. @default 'drop'
   */
  readonly onPrefixMismatch?: PrefixMismatchPolicy;
  /**
   * Wall-clock limit of one trajectory in ms, from its group's first sample to its end; past it the trajectory's
   * signal is aborted (sampler and tool call) and it ends as an `error` with stage `timeout`. Omit for none.
   */
  readonly trajectoryTimeoutMs?: number;
  /**
   * Deadline of one `env.step` call in ms, for every environment: a step still pending then (a tool that ignores its
   * abort signal) ends its trajectory as an `error` with stage `timeout`, and the environment's signal is aborted.
   * `Infinity` for none. @default the environment's own `stepTimeoutMs`, else `DEFAULT_STEP_TIMEOUT_MS` (60 000)
   */
  readonly stepTimeoutMs?: number;
  /** Groups rolled out at once (`runRollouts`, and the Trainer in both modes). @default Infinity */
  readonly maxConcurrentGroups?: number;
  /**
   * Trajectories in flight at once (`runRollouts`, and the Trainer in both modes): a group starts when `groupSize`
   * slots are free, or when nothing is in flight. @default Infinity
   */
  readonly maxConcurrentTrajectories?: number;
  /** Extra chat-template variables (e.g. `{ enable_thinking: false }`). */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  /** Aborts every rollout of the call (sampling and tool calls in flight). */
  readonly signal?: AbortSignal;
  /** Called after each assistant turn (the Trainer's `turn` event). */
  readonly onTurn?: (e: TurnEvent) => void;
  /**
   * Called with each trajectory of `runGroup` as soon as it is final (ended, and not going to be retried), before
   * the rest of its group has ended, so a caller can score it at once. A failed trajectory whose retries were cut
   * short by an abort is not reported here; it is still in `runGroup`'s result.
   */
  readonly onTrajectoryEnd?: (t: Trajectory) => void;
}

/** What the rollout engine hands an environment that drives its own trajectories ({@link DrivenEnvironment}). */
export interface DrivenTrajectoryContext {
  /** Id of this trajectory, `${exampleId}/${groupIndex}`. */
  readonly trajectoryId: string;
  /** Branch index within the group, 0-based. */
  readonly groupIndex: number;
  /** The dataset example of the group. */
  readonly example: Example;
  /** The current policy's sampler. */
  readonly sampler: SamplingClient;
  /** The policy's chat template and tokenizer. */
  readonly renderer: Renderer;
  /** Per-trajectory budgets, every one set. */
  readonly budgets: RolloutBudgets;
  /** The rollout's sampling settings (temperature, top-p, top-k; the learner's logprobs assume them). */
  readonly sampling?: RolloutSampling;
  /** A seed for this trajectory's k-th sampling call, derived from the rollout's base seed; `undefined` without one. */
  seedFor(call: number): number | undefined;
  /** Extra chat-template variables (e.g. `{ enable_thinking: false }`). */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  /** Aborted when the rollout is cancelled or the trajectory ran past `trajectoryTimeoutMs`. */
  readonly signal: AbortSignal;
  /** Call after each recorded model call (the Trainer's `turn` event). */
  readonly onTurn?: (e: TurnEvent) => void;
}

/** A trajectory as a driving environment returns it; the engine adds its id, example and group index. */
export type DrivenTrajectory = Omit<Trajectory, 'id' | 'example' | 'groupIndex' | 'weightsVersion'>;

/**
 * An environment that runs each trajectory itself instead of the engine's sample → parse → step loop (e.g.
 * `agentEnvironment`, where unchanged agent code calls the policy through an endpoint and every call is recorded).
 * `runGroup` calls `runTrajectory` once per branch, concurrently, with each branch's own signal; it must resolve
 * (a failure is a trajectory with `stopReason: 'error'`), and soon after its signal aborts.
 */
export interface DrivenEnvironment extends Environment {
  /** Runs one whole trajectory; resolves (a failure is `stopReason: 'error'`), and soon after `ctx.signal` aborts. */
  runTrajectory(ctx: DrivenTrajectoryContext): Promise<DrivenTrajectory>;
}

