export type { Renderer, RenderOptions, NextPromptArgs } from './types.js';
export { loadRenderer } from './load-renderer.js';
export { createRenderer, type ChatRenderer } from './renderer.js';
export type { LoadRendererOptions, RendererSettings, RendererFiles } from './options.js';
export {
  parseAssistant,
  TOOL_CALL_OPEN,
  TOOL_CALL_CLOSE,
  type ParseAssistantOptions,
  type ToolCallFormat,
} from './parse-assistant.js';
export { spliceObservation, PLACEHOLDER, type SpliceDeps, type SpliceArgs } from './next-prompt.js';
export { sanitizeToolContent, SANITIZE_MARK } from './sanitize.js';
export { suffixPrefixOverlap } from './overlap.js';
export { toTemplateMessages, type TemplateMessage } from './template-messages.js';
export { countTokens } from './count-tokens.js';
export type { ParseOptions } from './types.js';
export * from './families/index.js';
