import { getCommand, listCommands, type CliIo } from './registry.js';
import { agentrlVersion } from 'agentrl/internal';

function help(): string {
  const lines = listCommands().map((c) => `  ${c.name.padEnd(16)} ${c.summary}`);
  return `Usage: agentrl <command> [options]\n       agentrl --version\n\nCommands:\n${lines.join('\n')}\n\nRun 'agentrl <command> --help' for a command's options.\n`;
}

/**
 * Dispatches `argv` (without `node` and the script path) to a registered command.
 * `--version` / `-V` prints the package version.
 * @returns the exit code: the command's, 0 for `--help` and `--version`, 2 for an unknown command or bad usage
 *   (every built-in command also returns 2 for bad usage, 1 for a failure while running).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`agentrl ${agentrlVersion()}\n`);
    return 0;
  }
  const cmd = getCommand(name);
  if (!cmd) {
    io.stderr(`agentrl: unknown command '${name}'\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`${typeof cmd.usage === 'string' ? cmd.usage : await cmd.usage()}\n`);
    return 0;
  }
  return cmd.run(rest, io);
}
