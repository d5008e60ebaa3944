import { AgentRLError } from 'agentrl/internal';
import { UsageError } from 'agentrl/internal';

/**
 * True when `e` means the command line (or the options it names) is wrong, so the command prints its usage and exits
 * with code 2: a {@link UsageError}, a `node:util` `parseArgs` error (`ERR_PARSE_ARGS_*`: unknown flag, missing
 * value), or a `ConfigError` (`CONFIG_INVALID`) from the options the flags built.
 */
export function isUsageFailure(e: unknown): boolean {
  if (UsageError.isInstance(e)) return true;
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return true;
  return AgentRLError.isInstance(e) && e.code === 'CONFIG_INVALID';
}
