export type { TrainingBackend, SamplingClient, AdamParams, ForwardBackwardResult, OptimStepResult } from './types.js';
export * from './local/index.js';
export * from './openai/index.js';
