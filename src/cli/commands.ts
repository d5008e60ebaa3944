import { registerCommand, getCommand } from './registry.js';
import { sandboxServeCommand } from './sandbox-serve.js';
import { evalCommand } from './eval.js';
import { serveCommand } from './serve.js';

/** Registers the built-in commands once (idempotent). Add new built-ins here. */
export function registerBuiltinCommands(): void {
  if (!getCommand(sandboxServeCommand.name)) registerCommand(sandboxServeCommand);
  if (!getCommand(evalCommand.name)) registerCommand(evalCommand);
  if (!getCommand(serveCommand.name)) registerCommand(serveCommand);
}
