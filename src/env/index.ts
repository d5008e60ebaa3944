export type { Environment, ToolContext, StepOutcome } from './types.js';
export {
  codeInterpreter,
  formatExecObservation,
  CODE_INTERPRETER_TOOL,
  CODE_INTERPRETER_SYSTEM_PROMPT,
  CODE_INTERPRETER_SESSION_TOOL,
  CODE_INTERPRETER_SESSION_SYSTEM_PROMPT,
  SESSION_RESET_NOTE,
  type CodeInterpreterOptions,
} from './code-interpreter.js';
export { truncateTail, tailBytes, headBytes, utf8Bytes, TRUNCATION_MARKER, MAX_BYTES_PER_TOKEN, type TruncateOptions } from './truncate.js';
export { boundObservation, type BoundedObservation } from './bound-observation.js';
export * from './search/index.js';
export * from './sql/index.js';
export { defineTool, toolEnvironment, type Tool, type DefineToolOptions, type ToolEnvironmentOptions } from './define-tool.js';
export { runToolCalls, DEFAULT_MAX_CONCURRENT_CALLS } from './parallel-calls.js';
export * from './mcp/index.js';
export * from './agent/index.js';
export { mixEnvironments, MIX_ENV_KEY, type MixEntry, type MixOptions, type MixedEnvironments } from './mix-environments.js';
export * from './ai-sdk/index.js';
