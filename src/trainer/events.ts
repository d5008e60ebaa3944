import type { Trajectory } from '../types/trajectory.js';
import type { RewardResult } from '../types/reward.js';

/** `rollout:start`: a step's rollout begins. */
export interface RolloutStartEvent {
  /** 1-based step number. */
  readonly step: number;
  /** Number of groups (questions) in this step. */
  readonly groups: number;
  /** Trajectories per group. */
  readonly groupSize: number;
}

/**
 * `trajectory`: one finished, scored trajectory. After `trainer.abort()`, every trajectory of the aborted step (and of
 * steps rolled out ahead of it) is emitted once with `aborted: true`: those that ended before the abort keep their stop
 * reason and, when they were scored, their reward; the rest end `aborted` with reward `{ reward: 0, failure: 'aborted',
 * drop: true }`. None of them is trained on, and no `group` event follows for them.
 */
export interface TrajectoryEvent {
  /** 1-based step number the trajectory was rolled out for. */
  readonly step: number;
  /** The whole trajectory (messages and token-level turns). */
  readonly trajectory: Trajectory;
  /** The reward's result for it. */
  readonly reward: RewardResult;
  /** Set when the step was aborted (`trainer.abort()`): the trajectory was not trained on. */
  readonly aborted?: true;
}

/** `group`: one group's rewards and advantages. `degenerate` groups (all rewards equal) are skipped when configured. */
export interface GroupEvent {
  /** 1-based step number. */
  readonly step: number;
  /** Id of the group's example. */
  readonly exampleId: string;
  /** Reward of each trajectory, in group order. */
  readonly rewards: readonly number[];
  /** Advantage of each trajectory (reward minus the group mean, normalized per `advantage.normalize`), in group order. */
  readonly advantages: readonly number[];
  /** Whether all rewards of the group were equal (every advantage 0). */
  readonly degenerate: boolean;
  /** Trajectories dropped from training (failed rollouts, unparseable gold answer, reward errors/timeouts). */
  readonly dropped: number;
}

/** `rollout:end`: the round's rollout statistics (a subset of the step metrics). */
export interface RolloutEndEvent {
  /** 1-based step number. */
  readonly step: number;
  /** Trajectories rolled out this round. */
  readonly trajectories: number;
  /** Rollout metrics (`reward/*`, `rollout/*`, `sandbox/*`; see docs/metrics.md). */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * `step`: emitted after the optimizer update, with every metric of the step. Metric names follow the
 * the ReTool recipe (KMnO4-zx/agentic-rl-lab `05-retool/train.py` `rollout_metrics`) and tinker-cookbook:
 * `reward/mean`, `reward/correct`, `reward/format`,
 * `rollout/valid_tool_call_rate`, `rollout/tool_calls`, `rollout/turns`, `rollout/trajectory_tokens`,
 * `rollout/degenerate_group_rate`, `sandbox/success_rate`, `sandbox/error_rate`, `sandbox/timeout_rate`,
 * `sandbox/latency_ms`, `optim/loss`, `optim/clip_frac`, `optim/kl_sample_train`, `optim/grad_norm`,
 * `rollout/staleness_mean`, `rollout/stale_dropped`, `time/rollout_s`, `time/train_s`, `time/learner_idle_s`,
 * `time/sampler_idle_s` (see docs/metrics.md).
 */
export interface StepEvent {
  /** 1-based step number. */
  readonly step: number;
  /** Every metric of the step, by name (see above). */
  readonly metrics: Readonly<Record<string, number>>;
}

/** `checkpoint`: weights and optimizer state were saved to `path`. */
export interface CheckpointEvent {
  /** 1-based step number after which the checkpoint was taken. */
  readonly step: number;
  /** Directory the checkpoint was written to. */
  readonly path: string;
}

/** `eval`: results of an evaluation run during training. */
export interface EvalEvent {
  /** 1-based step number (0 for the evaluation before the first step). */
  readonly step: number;
  /** `eval/*` metrics (see {@link EvalResult.metrics}). */
  readonly metrics: Readonly<Record<string, number>>;
}

export type { WarningCode, WarningEvent } from '../types/warning.js';
