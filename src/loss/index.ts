export type {
  AdvantageNormalization,
  AdvantageOptions,
  DatumTurn,
  DatumSource,
  PrefixMismatchPolicy,
  BuildDatumOptions,
  BuildDatumsOptions,
  DatumBatch,
  TokenBudget,
  PackOptions,
  MicroBatch,
  PerTokenLossInputs,
  ReferenceLossResult,
} from './types.js';
export { groupAdvantages, isDegenerateGroup } from './advantages.js';
export { buildDatum, buildDatums } from './datum.js';
export { supervisedDatum, type SupervisedDatumInput } from './supervised-datum.js';
export { validateDatum, validateDatums } from './validate-datum.js';
export { packMicroBatches, microBatchWeight } from './pack.js';
export { perTokenLoss, isClipped, ratioBounds, CISPO_DEFAULT_CLIP_LOW } from './per-token-loss.js';
export { aggregateLoss, DEFAULT_AGGREGATION } from './aggregate.js';
export { referenceLoss } from './reference-loss.js';
export { lossConfigSchema, aggregationSchema, parseLossConfig } from './loss-config-schema.js';
export { LOSSES, lossDefinition, lossSequence } from './registry.js';
export type { LossDefinition, NativeLoss } from './loss-definition.js';
export { lossMetrics, backendLossMetrics } from './loss-metrics.js';
export { defineLoss, CUSTOM_LOSS_FD_STEP } from './kinds/custom.js';
export { groupOutcome, type GroupOutcome, type GroupOutcomeOptions } from './group-outcome.js';
export { assembleTrainingData, type TrainingGroup, type AssembleOptions, type TrainingData } from './training-data.js';
export { microBatchLossWeight, maskedTokens, activeDatums } from './micro-batch-weight.js';
export { klEstimate, klEstimateGrad, klPenaltyInAdvantages, type KlEstimator, type KlPenaltyResult } from './kl-penalty.js';
export { withKlLoss } from './kl-loss.js';
export { correctRollouts, type RolloutCorrectionConfig, type RolloutCorrectionResult } from './rollout-correction.js';
export { overlongPenalty, responseTokens, type OverlongConfig } from './overlong.js';
export { isInformativeGroup, type DynamicSamplingMetric } from './informative-group.js';
