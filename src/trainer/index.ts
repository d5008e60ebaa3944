export { Trainer, type TrainSummary } from './trainer.js';
export { trainerOptionsSchema, resolveTrainerOptions, type TrainerOptions, type ResolvedTrainerOptions } from './config.js';
export type * from './events.js';
export { rolloutMetrics, trajectoryTokens } from './rollout-metrics.js';
export { jsonlSink, progressSink, type MetricsSink } from './metrics-sink.js';
export { trainOnDatums, microBatchLossWeight } from './train-step.js';
export { batchIterator } from './batches.js';
export { mulberry32 } from '../util/rng.js';
export { trainSupervised, lengthBucketedBatches, type SupervisedTrainOptions } from './supervised.js';
