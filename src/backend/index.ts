export type { TrainingBackend, SamplingClient, AdamParams, ForwardBackwardResult, OptimStepResult } from './types.js';
export * from './local/index.js';
export * from './openai/index.js';
export * from './tinker/index.js';
