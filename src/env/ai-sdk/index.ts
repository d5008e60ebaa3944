export { fromAiSdkTools, type AiSdkToolLike } from './from-ai-sdk-tools.js';
export { policyLanguageModel, toOpenAIMessages, type PolicyLanguageModel, type PolicyLanguageModelOptions } from './policy-model.js';
