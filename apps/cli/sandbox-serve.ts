import { parseArgs } from 'node:util';
import type { Sandbox } from 'agentrl/internal';
import { AgentRLError } from 'agentrl/internal';
import type { CliCommand, CliIo } from './registry.js';
import { numberFlag, type SandboxAdapter } from 'agentrl/internal';
import { UsageError } from 'agentrl/internal';
import { isUsageFailure } from './usage.js';
import { loadSandboxAdapters } from 'agentrl/internal';

/** The usage text: the common options, then each servable adapter's own flags (from its descriptor). */
function usage(adapters: readonly SandboxAdapter[]): string {
  const servable = adapters.filter((a) => a.servable);
  const names = servable.map((a) => a.name);
  const flagLines = new Map<string, { left: string; help: string[] }>();
  for (const a of servable) {
    for (const [flag, spec] of Object.entries(a.flags)) {
      const line = flagLines.get(flag) ?? { left: `--${flag}${spec.placeholder ? ` ${spec.placeholder}` : ''}`, help: [] };
      line.help.push(`${a.name}: ${spec.help}`);
      flagLines.set(flag, line);
    }
  }
  const option = (left: string, help: string): string => `  ${left.padEnd(24)} ${help}`;
  return `Usage: agentrl sandbox-serve [options]

Serves one agentrl sandbox over SandboxFusion's HTTP API (POST /run_code, GET /v1/ping), so
remoteSandbox({ url }) — or any SandboxFusion client — can use it from another machine.

Options:
  --port <n>               TCP port; 0 picks a free one (default 8080)
  --host <addr>            bind address (default 127.0.0.1; use 0.0.0.0 to serve other hosts, which
                           requires an API key)
  --api-key <key>          require Authorization: Bearer <key> (or X-API-Key); default: the
                           AGENTRL_API_KEY environment variable; clients: remoteSandbox({ apiKey })
${option('--backend <name>', `${names.join(' | ')} (default local)`)}
  --timeout-ms <n>         default per-call limit, ms (requests send their own run_timeout)
  --max-output-bytes <n>   bytes kept per stream
  --memory-mb <n>          memory limit (local: RLIMIT_AS headroom; docker: container; isolated-vm: heap)
${[...flagLines.values()].map((l) => option(l.left, l.help.join('; '))).join('\n')}
  --max-in-flight <n>      calls handed to the sandbox at once (default: the backend's capacity, e.g.
                           --workers / --pool-size); more wait in a queue fair across clients
  --max-in-flight-per-client <n>  calls of one client at once (default --max-in-flight)
  --max-queued <n>         calls waiting beyond --max-in-flight before answering 503 (default 1024)

Backends:
${servable.map((a) => option(a.name, a.summary)).join('\n')}

Prints "listening on <url>" when ready; SIGINT/SIGTERM stop it.`;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const COMMON_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  backend: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-output-bytes': { type: 'string' },
  'memory-mb': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-in-flight-per-client': { type: 'string' },
  'max-queued': { type: 'string' },
  'api-key': { type: 'string' },
} as const;

/** parseArgs options: the common flags and every servable adapter's own. */
function parseOptions(adapters: readonly SandboxAdapter[]): Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = { ...COMMON_FLAGS };
  for (const a of adapters.filter((x) => x.servable)) {
    for (const [flag, spec] of Object.entries(a.flags)) options[flag] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) };
  }
  return options;
}

/** The adapter named by `--backend`, with its options from the flags (adapters are loaded lazily by `create`). */
function chooseAdapter(adapters: readonly SandboxAdapter[], v: Values): { adapter: SandboxAdapter; options: Record<string, unknown> } {
  const backend = (v['backend'] as string | undefined) ?? 'local';
  const servable = adapters.filter((a) => a.servable);
  const adapter = servable.find((a) => a.name === backend);
  if (adapter === undefined) throw new UsageError(`--backend must be ${servable.map((a) => a.name).join(', ')}, got '${backend}'`);
  const timeoutMs = numberFlag(v, 'timeout-ms');
  const maxOutputBytes = numberFlag(v, 'max-output-bytes');
  const memoryMb = numberFlag(v, 'memory-mb');
  const common = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
  };
  return { adapter, options: adapter.optionsFromFlags(v, common) };
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const adapters = await loadSandboxAdapters();
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: parseOptions(adapters),
    }));
  } catch (e) {
    io.stderr(`agentrl sandbox-serve: ${e instanceof Error ? e.message : String(e)}\n\n${usage(adapters)}\n`);
    return 2;
  }
  let sandbox: Sandbox;
  let capacity: number;
  try {
    const { adapter, options } = chooseAdapter(adapters, values);
    capacity = adapter.capacity(options);
    sandbox = await adapter.create(options);
  } catch (e) {
    const badUsage = isUsageFailure(e);
    io.stderr(`agentrl sandbox-serve: ${e instanceof Error ? e.message : String(e)}\n`);
    return badUsage ? 2 : 1;
  }
  const { createSandboxServer } = await import('agentrl/adapters/remote');
  let url: string;
  let server: ReturnType<typeof createSandboxServer>;
  try {
    const maxInFlight = numberFlag(values, 'max-in-flight') ?? capacity;
    const perClient = numberFlag(values, 'max-in-flight-per-client');
    const maxQueued = numberFlag(values, 'max-queued');
    const apiKey = (values['api-key'] as string | undefined) ?? process.env['AGENTRL_API_KEY'];
    server = createSandboxServer(sandbox, {
      maxInFlight,
      ...(perClient === undefined ? {} : { maxInFlightPerClient: perClient }),
      ...(maxQueued === undefined ? {} : { maxQueued }),
      ...(apiKey ? { apiKey } : {}),
    });
    ({ url } = await server.listen({ port: numberFlag(values, 'port') ?? 8080, host: (values['host'] as string | undefined) ?? '127.0.0.1' }));
  } catch (e) {
    const usage = AgentRLError.isInstance(e) && e.code === 'CONFIG_INVALID';
    io.stderr(`agentrl sandbox-serve: ${usage ? '' : 'cannot listen: '}${e instanceof Error ? e.message : String(e)}\n`);
    await sandbox.close();
    return usage ? 2 : 1;
  }
  io.stdout(`agentrl sandbox-serve: listening on ${url} (backend ${sandbox.name})\n`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  await sandbox.close();
  io.stdout('agentrl sandbox-serve: stopped\n');
  return 0;
}

/** `agentrl sandbox-serve`: exposes any servable sandbox adapter (found by `loadSandboxAdapters`) over SandboxFusion's API. */
export const sandboxServeCommand: CliCommand = {
  name: 'sandbox-serve',
  summary: 'serve a sandbox backend (local, docker, isolated-vm, …) over the SandboxFusion HTTP API',
  usage: async () => usage(await loadSandboxAdapters()),
  run,
};
