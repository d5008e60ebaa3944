import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { Sandbox } from '../types/exec-result.js';
import { AgentRLError } from '../errors/base.js';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl sandbox-serve [options]

Serves one agentrl sandbox over SandboxFusion's HTTP API (POST /run_code, GET /v1/ping), so
remoteSandbox({ url }) — or any SandboxFusion client — can use it from another machine.

Options:
  --port <n>               TCP port; 0 picks a free one (default 8080)
  --host <addr>            bind address (default 127.0.0.1; use 0.0.0.0 to serve other hosts, which
                           requires an API key)
  --api-key <key>          require Authorization: Bearer <key> (or X-API-Key); default: the
                           AGENTRL_API_KEY environment variable; clients: remoteSandbox({ apiKey })
  --backend <name>         local | docker | isolated-vm (default local)
  --timeout-ms <n>         default per-call limit, ms (requests send their own run_timeout)
  --max-output-bytes <n>   bytes kept per stream
  --memory-mb <n>          memory limit (local: RLIMIT_AS headroom; docker: container; isolated-vm: heap)
  --workers <n>            local: concurrent calls; isolated-vm: worker processes
  --image <name>           docker: image (default agentrl-sandbox:local, see scripts/docker-image.sh)
  --pool-size <n>          docker: warm containers
  --cpus <n>               docker: CPUs per container
  --pids-limit <n>         docker: processes per container
  --bind <spec>            docker: extra bind mount host:container[:ro] (repeatable)
  --max-in-flight <n>      calls handed to the sandbox at once (default: --workers / --pool-size, or
                           the backend's default); more wait in a queue fair across clients
  --max-in-flight-per-client <n>  calls of one client at once (default --max-in-flight)
  --max-queued <n>         calls waiting beyond --max-in-flight before answering 503 (default 1024)

Prints "listening on <url>" when ready; SIGINT/SIGTERM stop it.`;

type Values = Record<string, string | string[] | boolean | undefined>;

function intOpt(v: Values, key: string): number | undefined {
  const raw = v[key];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new UsageError(`--${key} expects a number, got '${String(raw)}'`);
  return n;
}

class UsageError extends Error {}

/** Builds the sandbox named by `--backend` (adapters are loaded lazily, so unused ones need not be installed). */
async function makeSandbox(v: Values): Promise<Sandbox> {
  const backend = (v['backend'] as string | undefined) ?? 'local';
  const timeoutMs = intOpt(v, 'timeout-ms');
  const maxOutputBytes = intOpt(v, 'max-output-bytes');
  const memoryMb = intOpt(v, 'memory-mb');
  const workers = intOpt(v, 'workers');
  const common = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
  };
  switch (backend) {
    case 'local': {
      const { localSandbox } = await import('../../adapters/local/index.js');
      return localSandbox({ ...common, ...(workers === undefined ? {} : { workers }) });
    }
    case 'docker': {
      const { dockerSandbox } = await import('../../adapters/docker/index.js');
      const poolSize = intOpt(v, 'pool-size');
      const cpus = intOpt(v, 'cpus');
      const pidsLimit = intOpt(v, 'pids-limit');
      const sb = dockerSandbox({
        image: (v['image'] as string | undefined) ?? 'agentrl-sandbox:local',
        ...common,
        ...(poolSize === undefined ? {} : { poolSize }),
        ...(cpus === undefined ? {} : { cpus }),
        ...(pidsLimit === undefined ? {} : { pidsLimit }),
        binds: (v['bind'] as string[] | undefined) ?? [],
      });
      await sb.ready();
      return sb;
    }
    case 'isolated-vm': {
      const { isolatedVmSandbox } = await import('../../adapters/isolated-vm/index.js');
      return isolatedVmSandbox({ ...common, ...(workers === undefined ? {} : { workers }) });
    }
    default:
      throw new UsageError(`--backend must be local, docker or isolated-vm, got '${backend}'`);
  }
}

/** Calls the chosen backend runs at once (its workers or pool size, defaults as in each adapter). */
function sandboxCapacity(v: Values): number {
  const backend = (v['backend'] as string | undefined) ?? 'local';
  if (backend === 'docker') return intOpt(v, 'pool-size') ?? 2;
  if (backend === 'isolated-vm') return intOpt(v, 'workers') ?? 1;
  return intOpt(v, 'workers') ?? Math.max(1, Math.min(4, availableParallelism()));
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        backend: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'max-output-bytes': { type: 'string' },
        'memory-mb': { type: 'string' },
        workers: { type: 'string' },
        image: { type: 'string' },
        'pool-size': { type: 'string' },
        cpus: { type: 'string' },
        'pids-limit': { type: 'string' },
        bind: { type: 'string', multiple: true },
        'max-in-flight': { type: 'string' },
        'max-in-flight-per-client': { type: 'string' },
        'max-queued': { type: 'string' },
        'api-key': { type: 'string' },
      },
    }));
  } catch (e) {
    io.stderr(`agentrl sandbox-serve: ${e instanceof Error ? e.message : String(e)}\n\n${USAGE}\n`);
    return 2;
  }
  let sandbox: Sandbox;
  try {
    sandbox = await makeSandbox(values);
  } catch (e) {
    const usage = e instanceof UsageError || (AgentRLError.isInstance(e) && e.code === 'CONFIG_INVALID');
    io.stderr(`agentrl sandbox-serve: ${e instanceof Error ? e.message : String(e)}\n`);
    return usage ? 2 : 1;
  }
  const { createSandboxServer } = await import('../../adapters/remote/index.js');
  let url: string;
  let server: ReturnType<typeof createSandboxServer>;
  try {
    const maxInFlight = intOpt(values, 'max-in-flight') ?? sandboxCapacity(values);
    const perClient = intOpt(values, 'max-in-flight-per-client');
    const maxQueued = intOpt(values, 'max-queued');
    const apiKey = (values['api-key'] as string | undefined) ?? process.env['AGENTRL_API_KEY'];
    server = createSandboxServer(sandbox, {
      maxInFlight,
      ...(perClient === undefined ? {} : { maxInFlightPerClient: perClient }),
      ...(maxQueued === undefined ? {} : { maxQueued }),
      ...(apiKey ? { apiKey } : {}),
    });
    ({ url } = await server.listen({ port: intOpt(values, 'port') ?? 8080, host: (values['host'] as string | undefined) ?? '127.0.0.1' }));
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

/** `agentrl sandbox-serve`: exposes a local, docker or isolated-vm sandbox over SandboxFusion's API. */
export const sandboxServeCommand: CliCommand = {
  name: 'sandbox-serve',
  summary: 'serve a sandbox (local | docker | isolated-vm) over the SandboxFusion HTTP API',
  usage: USAGE,
  run,
};
