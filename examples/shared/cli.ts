/**
 * `parseArgs` of `node:util` for the example scripts, with the exit code of a usage error: an unknown option or a
 * missing value prints the problem and the script's options, then exits with code 2 (as the `agentrl` CLI does),
 * instead of an uncaught TypeError (exit code 1).
 */
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';

export function parseArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof nodeParseArgs<T>> {
  try {
    return nodeParseArgs(config);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw e;
    const options = Object.entries(config.options ?? {}).map(([k, o]) => `--${k}${o.type === 'string' ? ' <value>' : ''}`);
    process.stderr.write(`${(e as Error).message}\nOptions: ${options.join(' ')}\n`);
    process.exit(2);
  }
}
