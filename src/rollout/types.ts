import type { Environment } from '../env/types.js';
import type { Renderer } from '../chat/types.js';
import type { SamplingClient } from '../backend/types.js';
import type { Trajectory } from '../types/trajectory.js';
import type { Example } from '../types/example.js';
import type { RolloutBudgets, RolloutSampling, TurnEvent } from '../types/rollout.js';
import type { PrefixMismatchPolicy } from '../types/prefix-mismatch.js';

export { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutSampling, type TurnEvent } from '../types/rollout.js';
export type { DrivenEnvironment, DrivenTrajectory, DrivenTrajectoryContext } from '../env/driven.js';

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
