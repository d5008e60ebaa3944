#!/usr/bin/env node
/** The `agentrl` executable (built to `dist/cli.js`). */
import 'agentrl/internal'; // first: its zod peer guard names a zod that is not 4.x before any command loads
import { registerBuiltinCommands } from './commands.js';
import { runCli } from './run-cli.js';

async function main(): Promise<void> {
  registerBuiltinCommands();
  const ctl = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => ctl.abort(new Error(sig)));
  }
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    signal: ctl.signal,
  });
}

void main();
