export type { FamilyId, ModelFamily, FamilyParse, FamilyParseOptions, FamilyDetectInput, CodeTemplate, CodeRenderOptions } from './types.js';
export { FAMILY_IDS } from './types.js';
export { getFamily, detectFamily } from './registry.js';
export { TOOL_CALL_OPEN, TOOL_CALL_CLOSE } from './qwen3.js';
export { PYTHON_TAG } from './llama3.js';
export { DEEPSEEK_MARKERS } from './deepseek-v3.js';
export { HARMONY } from './gpt-oss.js';
export { KIMI_MARKERS } from './kimi-k2.js';
export { MISTRAL_TOOL_CALLS } from './mistral.js';
