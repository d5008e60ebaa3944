export { openaiCompatibleSampler, type OpenAICompatibleSampler } from './openai-sampler.js';
export type { OpenAICompatibleSamplerOptions, SamplerFlavor } from './options.js';
export { vllmCompletionRequest, parseVllmCompletion } from './vllm.js';
export { sglangGenerateRequest, parseSglangGenerate } from './sglang.js';
