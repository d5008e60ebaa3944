import { parseArgs } from 'node:util';
import { AgentRLError } from '../errors/base.js';
import { createServeApp, type ServeApp } from '../serve/tinker/index.js';
import { openaiServePlugin } from '../serve/openai/serve-plugin.js';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl serve [options]

Serves the embedded engine (the local CPU model) over the Tinker HTTP API (/api/v1/...), so
tinkerBackend({ baseUrl }) — or any Tinker client — trains and samples it from another process or machine.
Each create_model is an independent copy of the checkpoint. The same server speaks OpenAI's API under /v1
(models, completions with token ids and logprobs, chat completions with tools and streaming), so
openaiCompatibleSampler, agentrl eval --sampler http://HOST:PORT/v1, or any OpenAI client can sample it;
model ids: the base model name and each saved tinker://…/sampler_weights/<name>.

Options:
  --checkpoint <dir>       a saveState directory every model starts from (default: fresh weights)
  --host <addr>            bind address (default 127.0.0.1; any other needs --api-key)
  --port <n>               TCP port; 0 picks a free one (default 8000)
  --api-key <key>          require X-API-Key: <key> (or Authorization: Bearer <key>) on every request
  --model-name <name>      the base model name offered (default agentrl/local)
  --state-dir <dir>        where save_weights writes (default: a temporary directory, removed on exit)
  --session-timeout-s <n>  drop a session (and its models) after this long without a heartbeat (default 300)

Prints "listening on http://HOST:PORT" when ready; SIGINT/SIGTERM stop it.`;

function intOpt(raw: string | undefined, key: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--${key} expects an integer in [0, 65535], got '${raw}'`);
  return n;
}

class UsageError extends Error {}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let serve: ServeApp;
  try {
    const { values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        checkpoint: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        'api-key': { type: 'string' },
        'model-name': { type: 'string' },
        'state-dir': { type: 'string' },
        'session-timeout-s': { type: 'string' },
      },
    });
    const port = intOpt(values.port, 'port');
    const sessionTimeoutS = values['session-timeout-s'] === undefined ? undefined : Number(values['session-timeout-s']);
    if (sessionTimeoutS !== undefined && !(sessionTimeoutS >= 1 && sessionTimeoutS <= 86_400)) {
      throw new UsageError(`--session-timeout-s expects seconds in [1, 86400], got '${values['session-timeout-s']}'`);
    }
    serve = createServeApp({
      ...(values.checkpoint !== undefined ? { checkpoint: values.checkpoint } : {}),
      ...(values.host !== undefined ? { host: values.host } : {}),
      port: port ?? 8000,
      ...(values['api-key'] !== undefined ? { apiKey: values['api-key'] } : {}),
      ...(values['model-name'] !== undefined ? { modelName: values['model-name'] } : {}),
      ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}),
      ...(sessionTimeoutS !== undefined ? { sessionTimeoutMs: Math.round(sessionTimeoutS * 1000) } : {}),
      plugins: [openaiServePlugin],
    });
  } catch (e) {
    const parseErr = typeof (e as { code?: unknown }).code === 'string' && String((e as { code: string }).code).startsWith('ERR_PARSE_ARGS');
    const usage = e instanceof UsageError || parseErr || (AgentRLError.isInstance(e) && e.code === 'CONFIG_INVALID');
    io.stderr(`agentrl serve: ${e instanceof Error ? e.message : String(e)}\n${usage ? `\n${USAGE}\n` : ''}`);
    return usage ? 2 : 1;
  }
  let url: string;
  try {
    url = await serve.listen();
  } catch (e) {
    io.stderr(`agentrl serve: cannot listen: ${e instanceof Error ? e.message : String(e)}\n`);
    await serve.close();
    return 1;
  }
  io.stdout(`agentrl serve: listening on ${url} (model ${serve.service.modelName}, context ${serve.service.contextTokens} tokens; OpenAI API at ${url}/v1)\n`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await serve.close();
  io.stdout('agentrl serve: stopped\n');
  return 0;
}

/** `agentrl serve`: the embedded engine behind the Tinker HTTP API. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'serve the embedded engine over the Tinker HTTP API (tinkerBackend, Tinker clients)',
  usage: USAGE,
  run,
};
