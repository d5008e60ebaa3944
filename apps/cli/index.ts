/** The `agentrl` command line: a small registry of sub-commands (`sandbox-serve`, …). */
export { registerCommand, getCommand, listCommands, type CliCommand, type CliIo } from './registry.js';
export { runCli } from './run-cli.js';
export { registerBuiltinCommands } from './commands.js';
export { sandboxServeCommand } from './sandbox-serve.js';
export { evalCommand } from './eval.js';
