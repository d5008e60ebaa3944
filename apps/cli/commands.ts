import { registerCommand, getCommand } from './registry.js';
import { sandboxServeCommand } from './sandbox-serve.js';
import { plotCommand } from './plot.js';
import { dashboardCommand } from './dashboard.js';
import { evalCommand } from './eval.js';
import { serveCommand } from './serve.js';
import { initCommand } from './init.js';
import { checkpointsCommand } from './checkpoints.js';

/** Registers the built-in commands once (idempotent). Add new built-ins here. */
export function registerBuiltinCommands(): void {
  for (const cmd of [sandboxServeCommand, serveCommand, checkpointsCommand, evalCommand, plotCommand, dashboardCommand, initCommand])
    if (!getCommand(cmd.name)) registerCommand(cmd);
}
