import type { SamplingClient } from '../backend/types.js';
import type { Reward, GroupReward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { RolloutContext, RolloutSampling, TurnEvent } from '../rollout/types.js';

/** One finished, scored group, ready to train on. */
export interface ReadyGroup {
  /** Launch order over the run (0-based; a resumed run continues the count from the data position). */
  readonly seq: number;
  readonly example: Example;
  /** The group's trajectories in branch order, each with the `weightsVersion` it was sampled with. */
  readonly trajectories_G: readonly Trajectory[];
  /** Per member: its reward (group reward included), same order. */
  readonly rewards_G: readonly RewardResult[];
  /** Weights version of the sampler the group was sampled with (optimizer steps applied before it). */
  readonly weightsVersion: number;
}

/** What a step trains on, with the pipeline's own metrics. */
export interface StepBatch {
  /** The groups of the step, in launch order. */
  readonly groups: readonly ReadyGroup[];
  /**
   * `rollout/staleness_mean` (weights versions between sampling and this update, mean over the step's groups),
   * `rollout/stale_dropped` (groups dropped as older than `maxStaleness`), `time/learner_idle_s` (the learner
   * waiting for this batch), `time/sampler_idle_s` (time with no trajectory in flight since the previous batch).
   */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * Where a Trainer's steps get their groups: round-synchronous ({@link syncBatchSource}) or streaming with bounded
 * staleness ({@link GroupStream}). One mode per file; the Trainer's step is the same for both.
 */
export interface BatchSource {
  /**
   * The groups of step `step` (1-based); `undefined` when the run was aborted.
   * @throws RolloutFailedError under fail-fast; whatever scoring threw (after every rollout in flight has ended).
   */
  nextBatch(step: number): Promise<StepBatch | undefined>;
  /**
   * Dynamic sampling: widen the rollout window by one more batch of groups for the current step, so that a further
   * `nextBatch` finds groups to take. Sources without a window (round-synchronous) need not implement it.
   */
  refill?(): void;
  /** The learner applied step `step`'s update: later rollouts sample from the new weights (version `step`). */
  weightsUpdated(step: number): Promise<void>;
  /** Examples consumed in order from the start of the data (the data position a checkpoint saves). */
  examplesConsumed(): number;
  /** Ends every rollout in flight and waits for it (in-flight work is simply redone after a resume). */
  close(): Promise<void>;
}

/** What both sources need to roll out and score groups. */
export interface BatchSourceOptions {
  /** Rollout settings shared by every group (sampler, seed and signal are set per group). */
  readonly rollout: Omit<RolloutContext, 'sampler' | 'sampling' | 'signal' | 'onTurn' | 'onTrajectoryEnd'>;
  readonly sampling: Omit<RolloutSampling, 'seed'>;
  /** The run's seed: group g of batch b samples with seed `seed·1000003 + b + 1`, group index g. */
  readonly seed: number;
  readonly groupSize: number;
  readonly questionsPerBatch: number;
  readonly reward: Reward;
  readonly groupReward?: GroupReward;
  readonly rewardTimeoutMs: number;
  /** Endless examples in data order, already advanced past `startAt`. */
  readonly examples: Iterator<Example>;
  /** Examples consumed before this source started (a resumed run's data position). */
  readonly startAt: number;
  /** A fresh sampler from the current weights (`TrainingBackend.saveWeightsForSampler`). */
  readonly newSampler: () => Promise<SamplingClient>;
  /** Weights version of the current weights (optimizer steps applied; a resumed run's step). */
  readonly weightsVersion: number;
  readonly signal: AbortSignal;
  readonly onTurn?: (e: TurnEvent & { readonly step: number }) => void;
  /**
   * Called once for every trajectory of a step that `signal` aborted (rolled out, or still in flight and then ended
   * `aborted`), with the step it was rolled out for and its reward when it had been scored. None of them is trained on.
   */
  readonly onAborted?: (step: number, trajectory: Trajectory, reward: RewardResult | undefined) => void;
}

/** Hands every trajectory of `groups` to `onAborted` (see {@link BatchSourceOptions.onAborted}). */
export function reportAborted(
  o: Pick<BatchSourceOptions, 'onAborted'>,
  step: number,
  groups: readonly { readonly trajectories_G: readonly Trajectory[]; readonly rewards_G?: readonly RewardResult[] }[],
): void {
  if (!o.onAborted) return;
  for (const g of groups)
    g.trajectories_G.forEach((t, i) => {
      o.onAborted!(step, t, g.rewards_G?.[i]);
    });
}

/** The sampling seed of batch `batchIndex` (0-based) of a run with seed `seed` (as in the round-synchronous loop). */
export const batchSeed = (seed: number, batchIndex: number): number => seed * 1_000_003 + batchIndex + 1;
