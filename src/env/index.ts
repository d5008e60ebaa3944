export type { Environment, ToolContext, StepOutcome } from './types.js';
export {
  codeInterpreter,
  formatExecObservation,
  CODE_INTERPRETER_TOOL,
  CODE_INTERPRETER_SYSTEM_PROMPT,
  type CodeInterpreterOptions,
} from './code-interpreter.js';
export { truncateTail, TRUNCATION_MARKER } from './truncate.js';
export * from './search/index.js';
export * from './sql/index.js';
export { defineTool, toolEnvironment, type Tool, type DefineToolOptions, type ToolEnvironmentOptions } from './define-tool.js';
