export { Trainer, type TrainSummary } from './trainer.js';
export { trainerOptionsSchema } from './config.js';
export { resolveTrainerOptions, resolveBudgets, defaultRunName, type ResolvedTrainerOptions } from './resolved-options.js';
export {
  TRAINER_DEFAULTS,
  type TrainerOptions,
  type WithDefaults,
  type FilledIn,
  type TrainerSampling,
  type TrainerOptimizer,
  type TrainerRolloutOptions,
  type TrainerEvalOptions,
  type TrainerKlOptions,
} from './options.js';
export { scheduledLearningRate, type LrSchedule } from './lr-schedule.js';
export type * from './events.js';
export type * from './trainer-events.js';
export { rolloutMetrics, trajectoryTokens } from '../eval/rollout-metrics.js';
export { jsonlSink, progressSink, type MetricsSink } from './metrics-sink.js';
export { DEFAULT_SINK_LIMITS, type SinkLimits } from './guarded-sink.js';
export { trainOnDatums } from './train-on-datums.js';
export { batchIterator } from './example-order.js';
export { mulberry32 } from '../util/rng.js';
export { trainSupervised, lengthBucketedBatches, type SupervisedTrainOptions } from './supervised.js';
export type { TrajectoryRecord, TokenSegment, TrajectoryLogOptions } from './trajectory-log.js';
export { coldStart, type Demonstration, type ColdStartOptions, type ColdStartResult, type DemonstrationFit } from './cold-start.js';
export { trainAndEvaluate, type TrainAndEvaluateOptions, type TrainAndEvaluateResult } from './train-and-evaluate.js';
