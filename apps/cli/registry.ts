import { invariant } from 'agentrl/internal';

/** Where a command writes; injectable so tests capture output. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted on SIGINT/SIGTERM (long-running commands stop cleanly). */
  readonly signal: AbortSignal;
}

/** One `agentrl <name> …` sub-command. */
export interface CliCommand {
  /** Word after `agentrl`, e.g. `'sandbox-serve'`. */
  readonly name: string;
  /** One line for `agentrl --help`. */
  readonly summary: string;
  /** Full usage text for `agentrl <name> --help` (a function when it depends on what is installed, e.g. adapters). */
  readonly usage: string | (() => Promise<string>);
  /** Runs with the arguments after the name; resolves to the process exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

const commands = new Map<string, CliCommand>();

/**
 * Adds a command to the registry used by {@link runCli}.
 * @throws InternalError when a command with the same name is already registered (agentrl registers each once).
 */
export function registerCommand(cmd: CliCommand): void {
  invariant(!commands.has(cmd.name), `agentrl CLI: command '${cmd.name}' is already registered`);
  commands.set(cmd.name, cmd);
}

/** The registered command called `name`, if any. */
export function getCommand(name: string): CliCommand | undefined {
  return commands.get(name);
}

/** All registered commands, sorted by name. */
export function listCommands(): CliCommand[] {
  return [...commands.values()].sort((a, b) => a.name.localeCompare(b.name));
}
