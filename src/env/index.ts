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
export { truncateTail, TRUNCATION_MARKER } from './truncate.js';
export * from './search/index.js';
export * from './sql/index.js';
