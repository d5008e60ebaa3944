import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ConfigError } from 'agentrl/internal';
import { createHttpServer, type HttpLimits } from 'agentrl/internal';
import { registerTinkerRoutes } from './routes.js';
import { TinkerService } from './service.js';
import type { ServeHost } from './serve-host.js';
import { AccessTokens } from './access-tokens.js';
import { serveLimitsSchema, type ServeLimits } from './serve-limits.js';

/**
 * An extra surface mounted on the same server (e.g. the OpenAI-compatible `/v1`). It receives the Fastify
 * instance and the server's {@link ServeHost} (its model, limits and samplers) before the server listens.
 */
export type ServePlugin = (app: FastifyInstance, service: ServeHost) => void | Promise<void>;

/** Options of {@link createServeApp}. */
export interface ServeAppOptions {
  /** A `saveState` directory (e.g. `examples/retool/checkpoints/sft`) every created model starts from. @default fresh weights of the default local model */
  readonly checkpoint?: string;
  /** Bind address; a non-loopback one needs `apiKey`. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 8000 */
  readonly port?: number;
  /** When set, requests must send `X-API-Key: KEY` (or `Authorization: Bearer KEY`). */
  readonly apiKey?: string;
  /**
   * Several accepted keys, one per client: each is its own principal, whose sessions, models, futures, checkpoints
   * and sampling sessions the others cannot see (404). Combined with `apiKey`.
   */
  readonly apiKeys?: readonly string[];
  /**
   * Access tokens (Tinker's `pjwt_auth_enabled`), on whenever the server has API keys: `POST /api/v1/auth/token`
   * exchanges a key for a JWT valid `ttlS` seconds, accepted wherever the key is (same principal). `secret`
   * (≥ 32 characters) lets tokens survive a restart. `false`: no exchange, `pjwt_auth_enabled: false`.
   * @default { ttlS: 3600, secret: random per start }
   */
  readonly accessTokens?: false | { readonly ttlS?: number; readonly secret?: string };
  /**
   * Ask Tinker SDK clients to zstd-compress `forward_backward` bodies (`client/config` `proto_compress_fwdbwd`): fewer
   * bytes across a network, more CPU on both ends. zstd bodies are decoded (within the body limit) either way.
   * @default false
   */
  readonly zstdBodies?: boolean;
  /** The base model name offered by `get_server_capabilities`. @default 'agentrl/local' */
  readonly modelName?: string;
  /** Directory for `save_weights` states. @default a temporary directory removed on close */
  readonly stateDir?: string;
  /** `retrieve_future` long-poll, ms. @default 30_000 */
  readonly pollTimeoutMs?: number;
  /** Sessions without a heartbeat for this long are dropped with their models, ms. @default 300_000 */
  readonly sessionTimeoutMs?: number;
  /** Finished results are kept this long for `retrieve_future` (then 410), ms. @default 600_000 */
  readonly futureTtlMs?: number;
  /** Request and load limits of the Tinker and `/v1` surfaces (`DEFAULT_SERVE_LIMITS`; `docs/security.md`). */
  readonly serveLimits?: Partial<ServeLimits>;
  /**
   * `'worker'`: each model's engine (and the base model's) in its own worker thread, so `healthz`, heartbeats and other
   * models answer while it computes. `'main'`: the engine on the server's thread (a long `forward_backward` holds every
   * request until it ends; for benchmarks that measure the engine's memory in-process). @default 'worker'
   */
  readonly engineThread?: 'worker' | 'main';
  /** Padded tokens per training micro-batch of each model's engine. @default 8192 */
  readonly maxBatchTokens?: number;
  /** Model shape and init seed when there is no `checkpoint` (`localBackend` options). @default the default local model, seed 0 */
  readonly model?: { readonly layers?: number; readonly dModel?: number; readonly heads?: number; readonly contextTokens?: number; readonly seed?: number };
  /** HTTP limits; the body limit defaults to 64 MiB here (a 1,024-datum chunk of JSON). */
  readonly limits?: Partial<HttpLimits>;
  /** Extra surfaces registered on the same Fastify instance, in order. */
  readonly plugins?: readonly ServePlugin[];
}

const optionsSchema = z.strictObject({
  checkpoint: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  apiKey: z.string().min(1).optional(),
  apiKeys: z.array(z.string().min(1)).optional(),
  accessTokens: z
    .union([
      z.literal(false),
      z.strictObject({
        ttlS: z
          .number()
          .int()
          .min(1)
          .max(86_400 * 30)
          .optional(),
        secret: z.string().min(32).optional(),
      }),
    ])
    .optional(),
  futureTtlMs: z.number().int().min(1000).optional(),
  serveLimits: serveLimitsSchema.optional(),
  engineThread: z.enum(['worker', 'main']).optional(),
  zstdBodies: z.boolean().optional(),
  modelName: z.string().min(1).optional(),
  stateDir: z.string().min(1).optional(),
  pollTimeoutMs: z.number().int().min(0).optional(),
  sessionTimeoutMs: z.number().int().min(1000).optional(),
  maxBatchTokens: z.number().int().min(64).optional(),
  model: z
    .strictObject({
      layers: z.number().int().optional(),
      dModel: z.number().int().optional(),
      heads: z.number().int().optional(),
      contextTokens: z.number().int().optional(),
      seed: z.number().int().optional(),
    })
    .optional(),
  limits: z.record(z.string(), z.number()).optional(),
  plugins: z.array(z.custom<ServePlugin>((f) => typeof f === 'function')).optional(),
});

/** A running (or ready to run) `agentrl serve`. */
export interface ServeApp {
  /** The Fastify instance (routes registered; add more before `listen`). */
  readonly app: FastifyInstance;
  /** The served model, its limits, samplers and counters ({@link ServeHost}). */
  readonly service: ServeHost;
  /** Registers the plugins and starts listening; resolves to the base URL, e.g. `http://127.0.0.1:8000`. */
  listen(): Promise<string>;
  /** Closes every model (pending polls answer at once), then stops the server. Idempotent. */
  close(): Promise<void>;
}

/**
 * `agentrl serve` as a library call: the embedded engine (`localBackend`) behind the Tinker HTTP API
 * (`/api/v1/...`, JSON bodies and protobuf `forward_backward` bodies and results by content negotiation, the REST
 * surface of runs, checkpoints with archive download, samplers and sessions, as thinking-machines-lab/tinker
 * `src/tinker/resources/` calls them), on the shared hardened HTTP layer. Each
 * `create_model` is an independent copy of `checkpoint`; per-model requests run in `seq_id` order; sampling
 * runs beside training.
 * @example
 * const serve = createServeApp({ checkpoint: 'examples/retool/checkpoints/sft', port: 0 });
 * const url = await serve.listen(); // then tinkerBackend({ baseUrl: url, … })
 * @throws ConfigError for invalid options, a non-loopback host without `apiKey`, or an unreadable checkpoint.
 */
export function createServeApp(options: ServeAppOptions = {}): ServeApp {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success)
    throw new ConfigError(
      'serve options',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  const o = options;
  const keys = [...(o.apiKey !== undefined ? [o.apiKey] : []), ...(o.apiKeys ?? [])];
  const tokens = keys.length > 0 && o.accessTokens !== false ? new AccessTokens(keys, o.accessTokens ?? {}) : undefined;
  const http = createHttpServer({
    name: 'agentrl serve',
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 8000,
    ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
    ...(o.apiKeys !== undefined ? { apiKeys: o.apiKeys } : {}),
    ...(tokens ? { verifyToken: (t: string) => tokens.verify(t) } : {}),
    limits: { maxBodyBytes: 64 * 1024 * 1024, ...o.limits },
  });
  let service: TinkerService;
  try {
    service = new TinkerService({
      ...(o.checkpoint !== undefined ? { checkpoint: o.checkpoint } : {}),
      ...(o.modelName !== undefined ? { modelName: o.modelName } : {}),
      ...(o.stateDir !== undefined ? { stateDir: o.stateDir } : {}),
      ...(o.pollTimeoutMs !== undefined ? { pollTimeoutMs: o.pollTimeoutMs } : {}),
      ...(o.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: o.sessionTimeoutMs } : {}),
      ...(o.futureTtlMs !== undefined ? { futureTtlMs: o.futureTtlMs } : {}),
      ...(o.serveLimits !== undefined ? { limits: o.serveLimits } : {}),
      ...(o.engineThread !== undefined ? { engineThread: o.engineThread } : {}),
      apiKeys: keys,
      ...(tokens ? { accessTokens: tokens } : {}),
      engine: {
        ...(o.checkpoint === undefined ? o.model : { seed: o.model?.seed }),
        ...(o.maxBatchTokens !== undefined ? { maxBatchTokens: o.maxBatchTokens } : {}),
      },
    });
  } catch (e) {
    void http.close();
    throw new ConfigError('serve options', [{ path: 'checkpoint', message: e instanceof Error ? e.message : String(e) }]);
  }
  registerTinkerRoutes(http.app, service, { maxBodyBytes: http.limits.maxBodyBytes, maxInFlight: http.limits.maxInFlight, zstdBodies: o.zstdBodies ?? false });
  let pluginsDone: Promise<void> | undefined;
  return {
    app: http.app,
    service,
    async listen() {
      pluginsDone ??= (async () => {
        for (const plugin of o.plugins ?? []) await plugin(http.app, service);
      })();
      await pluginsDone;
      return http.listen();
    },
    async close() {
      // The service first: it wakes pending long polls, so the HTTP layer has no request left to wait for.
      await service.close();
      await http.close();
    },
  };
}
