import type { Renderer } from '../chat/types.js';
import type { RolloutBudgets } from '../rollout/types.js';
import type { BatchSource, BatchSourceOptions } from './batch-source.js';
import type { ResolvedTrainerOptions } from './resolved-options.js';
import type { TrainerEvents } from './trainer-events.js';
import { exampleStream } from './example-order.js';
import { GroupStream } from './group-stream.js';
import { syncBatchSource } from './sync-batch-source.js';

/**
 * The source of a run's groups for its mode: {@link GroupStream} (`rollout.streaming`, with `async.maxStaleness`) or
 * the round-synchronous {@link syncBatchSource}, starting at data position `startAt` with weights version
 * `weightsVersion`.
 */
export function batchSourceFor(
  o: ResolvedTrainerOptions,
  run: {
    readonly renderer: Renderer;
    readonly budgets: RolloutBudgets;
    readonly startAt: number;
    readonly weightsVersion: number;
    readonly signal: AbortSignal;
    readonly onTurn: TrainerEvents['turn'];
    readonly onAborted?: BatchSourceOptions['onAborted'];
  },
): BatchSource {
  const common = {
    rollout: {
      renderer: run.renderer,
      env: o.env,
      budgets: run.budgets,
      failure: o.rollout.failure,
      onPrefixMismatch: o.onPrefixMismatch,
      ...(o.rollout.trajectoryTimeoutMs !== undefined ? { trajectoryTimeoutMs: o.rollout.trajectoryTimeoutMs } : {}),
      ...(o.rollout.stepTimeoutMs !== undefined ? { stepTimeoutMs: o.rollout.stepTimeoutMs } : {}),
      ...(o.rollout.maxConcurrentGroups !== undefined ? { maxConcurrentGroups: o.rollout.maxConcurrentGroups } : {}),
      ...(o.rollout.maxConcurrentTrajectories !== undefined ? { maxConcurrentTrajectories: o.rollout.maxConcurrentTrajectories } : {}),
      ...(o.templateKwargs ? { templateKwargs: o.templateKwargs } : {}),
    },
    sampling: { temperature: o.sampling.temperature, topP: o.sampling.topP, ...(o.sampling.topK !== undefined ? { topK: o.sampling.topK } : {}) },
    seed: o.seed,
    groupSize: o.groupSize,
    questionsPerBatch: o.questionsPerBatch,
    reward: o.reward,
    ...(o.groupReward ? { groupReward: o.groupReward } : {}),
    rewardTimeoutMs: o.rewardTimeoutMs,
    examples: exampleStream(o.dataset, o.questionsPerBatch, { shuffle: o.shuffle, seed: o.seed }, run.startAt),
    startAt: run.startAt,
    newSampler: () => o.backend.saveWeightsForSampler(),
    weightsVersion: run.weightsVersion,
    signal: run.signal,
    onTurn: run.onTurn,
    ...(run.onAborted ? { onAborted: run.onAborted } : {}),
  };
  if (!o.rollout.streaming) return syncBatchSource(common);
  return new GroupStream({
    ...common,
    maxStaleness: o.async.maxStaleness,
    maxSteps: o.maxSteps,
  });
}
