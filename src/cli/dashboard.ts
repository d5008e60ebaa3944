import { parseArgs } from 'node:util';
import { startDashboard } from '../report/dashboard-server.js';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl dashboard RUN_DIR [RUN_DIR …] [--port 6006] [--host 127.0.0.1] [--api-key KEY]

A local web page that follows runs live: reward, correct, format, tool-call, loss, clip-fraction, KL and
timing curves, and a trajectory viewer (conversation, tool calls and interpreter output; trained tokens
vs masked tokens; reward, stop reason and advantage). Several runs side by side.

Options:
  --port <n>        TCP port (default 6006; 0 picks a free one)
  --host <addr>     bind address (default 127.0.0.1; a non-loopback address needs --api-key)
  --api-key <key>   require this key (Authorization: Bearer KEY)

Prints "listening on <url>" when ready; Ctrl-C stops it.`;

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { port: { type: 'string' }, host: { type: 'string' }, 'api-key': { type: 'string' } } });
  } catch (e) {
    io.stderr(`agentrl dashboard: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const port = values.port === undefined ? 6006 : Number(values.port);
  if (positionals.length === 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`agentrl dashboard: ${positionals.length === 0 ? 'give a run directory' : `--port expects 0–65535, got '${values.port}'`}\n\n${USAGE}\n`);
    return 2;
  }
  let dash;
  try {
    dash = await startDashboard({ runDirs: positionals, port, ...(values.host ? { host: values.host } : {}), ...(values['api-key'] ? { apiKey: values['api-key'] } : {}) });
  } catch (e) {
    io.stderr(`agentrl dashboard: ${(e as Error).message}\n`);
    return 1;
  }
  io.stdout(`agentrl dashboard: listening on ${dash.url}\n`);
  await new Promise<void>((res) => (io.signal.aborted ? res() : io.signal.addEventListener('abort', () => res(), { once: true })));
  await dash.close();
  return 0;
}

/** `agentrl dashboard`: a live web view of run directories. */
export const dashboardCommand: CliCommand = { name: 'dashboard', summary: 'live web dashboard of runs (curves + trajectory viewer)', usage: USAGE, run };
