import { parseArgs } from 'node:util';
import { UsageError } from 'agentrl/internal';
import { parseNumberFlag } from 'agentrl/internal';
import { createServeApp, DEFAULT_SERVE_LIMITS, openaiServePlugin, serveLimitMax, type ServeApp, type ServeLimits } from 'agentrl/serve';
import type { CliCommand, CliIo } from './registry.js';
import { isUsageFailure } from './usage.js';

type Unit = 'count' | 'mib' | 's';
/** `--flag` → the {@link ServeLimits} field it sets, and the unit the flag is given in. */
const LIMIT_FLAGS: readonly (readonly [string, keyof ServeLimits, Unit])[] = [
  ['max-num-samples', 'maxNumSamples', 'count'],
  ['max-sample-tokens', 'maxSampleTokens', 'count'],
  ['max-sequences-per-request', 'maxSequencesPerRequest', 'count'],
  ['max-datums-per-request', 'maxDatumsPerRequest', 'count'],
  ['max-tokens-per-request', 'maxTokensPerRequest', 'count'],
  ['max-models-per-session', 'maxModelsPerSession', 'count'],
  ['max-models', 'maxModels', 'count'],
  ['max-queued-per-session', 'maxQueuedPerSession', 'count'],
  ['max-queued', 'maxQueued', 'count'],
  ['max-retained-results', 'maxRetainedResults', 'count'],
  ['max-out-of-order', 'maxOutOfOrderRequests', 'count'],
  ['max-out-of-order-mib', 'maxOutOfOrderBytes', 'mib'],
  ['out-of-order-timeout-s', 'outOfOrderTimeoutMs', 's'],
  ['max-named-samplers-per-model', 'maxNamedSamplersPerModel', 'count'],
  ['max-checkpoints-per-model', 'maxCheckpointsPerModel', 'count'],
  ['sampler-versions-per-model', 'samplerVersionsPerModel', 'count'],
  ['max-sampling-sessions-per-session', 'maxSamplingSessionsPerSession', 'count'],
  ['max-state-mib-per-session', 'maxStateBytesPerSession', 'mib'],
  ['max-state-mib', 'maxStateBytes', 'mib'],
];
const LIMIT_HELP: Record<keyof ServeLimits, string> = {
  maxNumSamples: 'num_samples / n of one sampling request',
  maxSampleTokens: 'max_tokens of one sampling request',
  maxSequencesPerRequest: 'prompts × n of one /v1 request',
  maxDatumsPerRequest: 'datums of one forward(_backward)',
  maxTokensPerRequest: 'tokens of one forward(_backward)',
  maxModelsPerSession: 'live models of one session',
  maxModels: 'live models in all',
  maxQueuedPerSession: 'unfinished futures of one session',
  maxQueued: 'unfinished futures in all',
  maxRetainedResults: 'finished results held',
  maxOutOfOrderRequests: 'requests held for a missing seq_id, per model',
  maxOutOfOrderBytes: 'their bytes per model, MiB',
  outOfOrderTimeoutMs: 'their longest wait, s',
  maxNamedSamplersPerModel: 'named sampler weights per model',
  maxCheckpointsPerModel: 'save_weights checkpoints per model',
  samplerVersionsPerModel: 'unnamed sampler versions kept per model',
  maxSamplingSessionsPerSession: 'create_sampling_session ids per session',
  maxStateBytesPerSession: 'checkpoint bytes of one session in --state-dir, MiB',
  maxStateBytes: 'checkpoint bytes in --state-dir in all, MiB',
};
const UNIT_SCALE: Record<Unit, number> = { count: 1, mib: 1024 * 1024, s: 1000 };
const fromLimit = (v: number, unit: Unit): string => String(v / UNIT_SCALE[unit]);

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
  --api-key <key>          require X-API-Key: <key> (or Authorization: Bearer <key>) on every request;
                           repeat it for several clients: each key then sees only its own sessions,
                           models, futures, checkpoints and samplers (404 for the others')
  --token-ttl-s <n>        with --api-key: POST /api/v1/auth/token exchanges a key for an access token (a JWT,
                           accepted like its key) valid this long; the Tinker SDK then uses it (default 3600)
  --no-tokens              with --api-key: no token exchange (client/config: pjwt_auth_enabled false)
  --zstd-bodies            ask Tinker SDK clients to zstd-compress forward_backward bodies (worth it across a
                           network; zstd bodies are accepted either way)
  --model-name <name>      the base model name offered (default agentrl/local)
  --state-dir <dir>        where save_weights writes (default: a temporary directory, removed on exit)
  --session-timeout-s <n>  drop a session (and its models) after this long without a heartbeat (default 300)
  --engine-thread <where>  worker: each model's engine in its own worker thread, so healthz, heartbeats and
                           other models answer while it trains (default); main: on the server's thread, where
                           one long forward_backward holds every request until it ends

Limits (docs/security.md, "agentrl serve"; past a request limit: 400, past a load limit: 429/503 + Retry-After):
${LIMIT_FLAGS.map(([flag, key, unit]) => `  --${flag} <n>`.padEnd(43) + `${LIMIT_HELP[key]} (default ${fromLimit(DEFAULT_SERVE_LIMITS[key], unit)})`).join('\n')}
  --max-body-mib <n>                       largest request body, MiB (default 64)
  --future-ttl-s <n>                       finished results kept for retrieve_future, then 410 (default 600)

Prints "listening on http://HOST:PORT" when ready; SIGINT/SIGTERM stop it.`;

/** A positive number flag (integer for counts) in the flag's unit, scaled to the option's unit (ms, bytes); undefined when absent. */
function positiveOpt(raw: string | undefined, flag: string, unit: Unit, max = 2 ** 31): number | undefined {
  const n = parseNumberFlag(flag, raw, {
    integer: unit === 'count',
    above: 0,
    max: max / UNIT_SCALE[unit],
    expects: `a positive ${unit === 'count' ? 'integer' : 'number'}`,
  });
  return n === undefined ? undefined : Math.round(n * UNIT_SCALE[unit]);
}

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
        'api-key': { type: 'string', multiple: true },
        'model-name': { type: 'string' },
        'state-dir': { type: 'string' },
        'session-timeout-s': { type: 'string' },
        'max-body-mib': { type: 'string' },
        'engine-thread': { type: 'string' },
        'future-ttl-s': { type: 'string' },
        'token-ttl-s': { type: 'string' },
        'no-tokens': { type: 'boolean' },
        'zstd-bodies': { type: 'boolean' },
        ...Object.fromEntries(LIMIT_FLAGS.map(([flag]) => [flag, { type: 'string' as const }])),
      },
    });
    const flags = values as Record<string, string | boolean | undefined>;
    const serveLimits: Partial<Record<keyof ServeLimits, number>> = {};
    for (const [flag, key, unit] of LIMIT_FLAGS) {
      const v = positiveOpt(flags[flag] as string | undefined, flag, unit, serveLimitMax(key));
      if (v !== undefined) serveLimits[key] = v;
    }
    const maxBodyBytes = positiveOpt(values['max-body-mib'], 'max-body-mib', 'mib');
    const futureTtlMs = positiveOpt(values['future-ttl-s'], 'future-ttl-s', 's');
    const keys = values['api-key'] ?? [];
    const tokenTtlMs = positiveOpt(values['token-ttl-s'], 'token-ttl-s', 's');
    if (tokenTtlMs !== undefined && tokenTtlMs % 1000 !== 0) throw new UsageError(`--token-ttl-s expects whole seconds, got '${values['token-ttl-s']}'`);
    if ((tokenTtlMs !== undefined || values['no-tokens']) && keys.length === 0) throw new UsageError('--token-ttl-s and --no-tokens need --api-key');
    if (tokenTtlMs !== undefined && values['no-tokens']) throw new UsageError('--token-ttl-s and --no-tokens exclude each other');
    const engineThread = values['engine-thread'];
    if (engineThread !== undefined && engineThread !== 'worker' && engineThread !== 'main')
      throw new UsageError(`--engine-thread expects worker or main, got '${engineThread}'`);
    const port = parseNumberFlag('port', values.port, { integer: true, min: 0, max: 65535 });
    const sessionTimeoutS = parseNumberFlag('session-timeout-s', values['session-timeout-s'], { min: 1, max: 86_400, expects: 'seconds in [1, 86400]' });
    serve = createServeApp({
      ...(values.checkpoint !== undefined ? { checkpoint: values.checkpoint } : {}),
      ...(values.host !== undefined ? { host: values.host } : {}),
      port: port ?? 8000,
      ...(keys.length === 1 ? { apiKey: keys[0]! } : keys.length > 1 ? { apiKeys: keys } : {}),
      serveLimits,
      ...(values['zstd-bodies'] ? { zstdBodies: true } : {}),
      ...(values['no-tokens'] ? { accessTokens: false as const } : tokenTtlMs !== undefined ? { accessTokens: { ttlS: tokenTtlMs / 1000 } } : {}),
      ...(engineThread !== undefined ? { engineThread } : {}),
      ...(maxBodyBytes !== undefined ? { limits: { maxBodyBytes } } : {}),
      ...(futureTtlMs !== undefined ? { futureTtlMs } : {}),
      ...(values['model-name'] !== undefined ? { modelName: values['model-name'] } : {}),
      ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}),
      ...(sessionTimeoutS !== undefined ? { sessionTimeoutMs: Math.round(sessionTimeoutS * 1000) } : {}),
      plugins: [openaiServePlugin],
    });
  } catch (e) {
    const usage = isUsageFailure(e);
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
