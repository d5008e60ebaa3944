import type { SamplingClient } from '../backend/types.js';
import type { Renderer } from '../chat/types.js';
import type { Example } from '../types/example.js';
import type { RolloutBudgets, RolloutSampling, TurnEvent } from '../types/rollout.js';
import type { Trajectory } from '../types/trajectory.js';
import type { Environment } from './types.js';

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
