import type { Server } from 'node:http';
import { z } from '../../src/util/zod.js';
import type { Sandbox } from '../../src/types/exec-result.js';
import { AgentRLError } from '../../src/errors/base.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { clientGone, createHttpServer, type HttpLimits, type HttpServerStats } from '../../src/http/index.js';
import { execResultToResponse } from './wire.js';

/** Options of {@link createSandboxServer}. Times in ms, sizes in bytes. */
export interface SandboxServerOptions {
  /** `language` values accepted. @default `['nodejs', 'javascript', 'js']` for an isolated-vm sandbox, else `['python', 'python3']` */
  readonly languages?: readonly string[];
  /** Largest request body, bytes (413 beyond). @default 8 MiB */
  readonly maxBodyBytes?: number;
  /**
   * Calls handed to the sandbox at once; more wait in a fair queue (one client's backlog cannot
   * starve another client) or get 503 when it is full. Set it to the sandbox's capacity (workers,
   * pool size) for fairness to hold: calls beyond it wait in the sandbox's own FIFO. @default 1024
   */
  readonly maxInFlight?: number;
  /** Calls of one client at once (client = API key when several are set, else remote address). @default `maxInFlight` */
  readonly maxInFlightPerClient?: number;
  /** Calls waiting for a slot before 503. @default 1024 */
  readonly maxQueued?: number;
  /** Upper bound on `run_timeout`, ms. @default 300000 */
  readonly maxTimeoutMs?: number;
  /**
   * Lower bound on `run_timeout`, ms: a `run_timeout` of 0 or 1e-9 runs with this limit (and reports
   * `timeout` if the code takes longer) instead of killing the call before it started. @default 100
   */
  readonly minTimeoutMs?: number;
  /** Required bearer key (`Authorization: Bearer KEY` or `X-API-Key`); required when listening on a non-loopback address. */
  readonly apiKey?: string;
  /** Several accepted keys, one per client (each is its own client for fairness). */
  readonly apiKeys?: readonly string[];
  /** Browser origins allowed (none by default: browser pages cannot call the server). */
  readonly allowedOrigins?: readonly string[];
  /** Other limits of the shared HTTP layer (timeouts, connections, body budget); see {@link HttpLimits}. */
  readonly limits?: Partial<HttpLimits>;
}

/** A SandboxFusion-compatible HTTP server in front of one of our sandboxes. */
export interface SandboxServer {
  /** The listening Node HTTP server (bound to the configured host; `address()` gives the port). */
  readonly server: Server;
  /**
   * Starts listening; port 0 picks a free port. Resolves with the base URL (`http://host:port`).
   * @throws ConfigError when `host` is not loopback and no API key was given.
   */
  listen(opts?: { readonly port?: number; readonly host?: string }): Promise<{ readonly url: string; readonly port: number; readonly host: string }>;
  /** Stops accepting, drops open connections (in-flight calls are aborted). Does not close the sandbox. */
  close(): Promise<void>;
  /** Counters of the HTTP layer (connections, in-flight, queued, buffered body bytes, shed requests). */
  stats(): HttpServerStats;
}

const seconds = z.number().nonnegative().optional();
const requestSchema = z.object({
  code: z.string(),
  language: z.string(),
  compile_timeout: seconds,
  run_timeout: seconds,
  memory_limit_MB: z.number().optional(),
  stdin: z.string().nullable().optional(),
  files: z.record(z.string(), z.string().nullable()).optional(),
  fetch_files: z.array(z.string()).optional(),
});

const optionsSchema = z
  .object({
    languages: z.array(z.string().min(1)).min(1).optional(),
    maxBodyBytes: z.number().int().min(1).optional(),
    maxInFlight: z.number().int().min(1).optional(),
    maxInFlightPerClient: z.number().int().min(1).optional(),
    maxQueued: z.number().int().min(0).optional(),
    maxTimeoutMs: z.number().int().min(1).optional(),
    minTimeoutMs: z.number().int().min(1).optional(),
    apiKey: z.string().min(1).optional(),
    apiKeys: z.array(z.string().min(1)).optional(),
    allowedOrigins: z.array(z.string()).optional(),
    limits: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** `run_timeout` (seconds, may be absent, 0 or tiny) → the call's limit in ms within `[minMs, maxMs]`. */
export function clampRunTimeoutMs(runTimeoutS: number | undefined, minMs: number, maxMs: number): number {
  const ms = Math.round((runTimeoutS ?? 10) * 1000);
  return Math.min(maxMs, Math.max(minMs, Number.isFinite(ms) ? ms : maxMs));
}

/**
 * Exposes `sandbox` over SandboxFusion's API: `POST /run_code` (request/response as
 * bytedance/SandboxFusion, plus the lossless `run_result.agentrl` extension) and `GET /v1/ping`
 * (`"pong"`, exempt from the in-flight limit). Runs on the shared hardened HTTP layer
 * (`src/server`): header/body deadlines, connection cap, body budget, fair admission, API key,
 * no browser cross-origin requests. A client that disconnects aborts its call. Status codes: 200 for
 * every executed call (whatever the code did); 422 for an invalid body, an unsupported language or
 * non-empty `files`; 413 for a body over `maxBodyBytes`; 401 without the API key; 403 for a browser
 * cross-origin request; 415 for a browser `text/plain` body; 408 for a body not received within
 * `limits.requestTimeoutMs`; 503 when overloaded or when the sandbox throws a retryable error; 500
 * for anything else. Nothing binds a port until `listen`.
 * @throws ConfigError for invalid options.
 */
export function createSandboxServer(sandbox: Sandbox, options: SandboxServerOptions = {}): SandboxServer {
  const checked = optionsSchema.safeParse(options);
  if (!checked.success) {
    throw new ConfigError(
      'sandbox server options',
      checked.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const languages = new Set(options.languages ?? (sandbox.name.includes('isolated-vm') ? ['nodejs', 'javascript', 'js'] : ['python', 'python3']));
  const maxInFlight = options.maxInFlight ?? 1024;
  const maxTimeoutMs = options.maxTimeoutMs ?? 300_000;
  const minTimeoutMs = Math.min(options.minTimeoutMs ?? 100, maxTimeoutMs);
  const http = createHttpServer({
    name: 'sandbox server',
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    limits: {
      maxBodyBytes: options.maxBodyBytes ?? 8 * 1024 * 1024,
      maxInFlight,
      maxInFlightPerClient: options.maxInFlightPerClient ?? maxInFlight,
      maxQueued: options.maxQueued ?? 1024,
      // The client's own deadline usually ends a wait sooner (it disconnects; the waiter is dropped).
      queueTimeoutMs: 60_000,
      ...options.limits,
    },
    errorBody: (e) => ({ detail: e.message }),
  });
  const app = http.app;

  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _req, reply) => {
    const status = err.statusCode ?? 500;
    // FastAPI (SandboxFusion) answers an unparsable body with 422, not 400.
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return reply.code(422).send({ detail: 'body is not JSON' });
    return reply.code(status >= 400 && status < 600 ? status : 500).send({ detail: status >= 500 && status !== 503 ? 'internal error' : err.message });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'Not Found' }));

  app.get('/v1/ping', { config: { admission: false } }, async (_req, reply) => reply.type('application/json').send('"pong"'));

  app.post('/run_code', async (req, reply) => {
    const parsed = requestSchema.safeParse(req.body);
    if (!parsed.success) {
      return reply.code(422).send({ detail: parsed.error.issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message })) });
    }
    const body = parsed.data;
    if (!languages.has(body.language)) {
      return reply.code(422).send({ detail: `language '${body.language}' is not served here (served: ${[...languages].join(', ')})` });
    }
    if (body.files && Object.keys(body.files).length > 0) {
      return reply.code(422).send({ detail: '`files` is not supported by agentrl sandbox-serve' });
    }
    const signal = clientGone(reply);
    try {
      const timeoutMs = clampRunTimeoutMs(body.run_timeout, minTimeoutMs, maxTimeoutMs);
      const result = await sandbox.run({ code: body.code, timeoutMs, ...(body.stdin ? { stdin: body.stdin } : {}) }, signal);
      return reply.code(200).send(execResultToResponse(result));
    } catch (e) {
      // Nobody is listening any more: end quietly (the socket is gone).
      if (signal.aborted) return reply.code(499).send({ detail: 'client disconnected' });
      const retryable = AgentRLError.isInstance(e) && e.retryable;
      return reply.code(retryable ? 503 : 500).send({ detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  });

  return {
    server: app.server,
    async listen(opts = {}) {
      const url = await http.listen({ ...(opts.host === undefined ? {} : { host: opts.host }), port: opts.port ?? 0 });
      const u = new URL(url);
      return { url, port: Number(u.port), host: u.hostname.replace(/^\[|\]$/g, '') };
    },
    close: () => http.close(),
    stats: () => http.stats(),
  };
}
