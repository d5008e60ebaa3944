export type {
  TrainingBackend,
  SamplingClient,
  AdamParams,
  ForwardBackwardResult,
  ForwardBackwardOptions,
  OptimStepResult,
  LearnerSampling,
  SamplingSupport,
  BackendOptionFacts,
  OptionVerdict,
} from './types.js';
export * from './local/index.js';
export * from './openai/index.js';
export * from './tinker/index.js';
