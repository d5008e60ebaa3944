import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors/config-error.js';

/**
 * Limits every agentrl HTTP server applies (sandbox-serve, the retrieval server, `agentrl serve`, the dashboard).
 * All durations in ms, sizes in bytes.
 */
export interface HttpLimits {
  /** Largest request body accepted; larger ones get 413. @default 16_777_216 (16 MiB) */
  readonly maxBodyBytes: number;
  /** Time allowed to receive a whole request (headers and body) before 408. @default 30_000 */
  readonly requestTimeoutMs: number;
  /** Time allowed to receive the request headers. @default 10_000 */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. @default 5_000 */
  readonly keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are refused by the socket layer. @default 256 */
  readonly maxConnections: number;
}

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** Name used in error messages and logs, e.g. `'sandbox-serve'`. */
  readonly name: string;
  /** Bind address. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /**
   * When set, every request must carry `Authorization: Bearer KEY` or `X-API-Key: KEY` (else 401).
   * Required when `host` is not a loopback address.
   */
  readonly apiKey?: string;
  /** Overrides of the default {@link HttpLimits}. */
  readonly limits?: Partial<HttpLimits>;
}

/** A server made by {@link createHttpServer}: register routes on `app`, then `listen()`. */
export interface HttpServer {
  /** The Fastify instance: add routes or plugins before {@link HttpServer.listen}. */
  readonly app: FastifyInstance;
  /** The limits in force. */
  readonly limits: HttpLimits;
  /** Starts listening; resolves to the base URL, e.g. `http://127.0.0.1:41234`. */
  listen(): Promise<string>;
  /** Stops accepting connections and ends open ones. Idempotent. */
  close(): Promise<void>;
}

/** Default {@link HttpLimits}. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
};

/** True for `127.0.0.0/8`, `::1` and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * One hardened HTTP layer for every agentrl server (Fastify underneath).
 * @throws ConfigError when `host` is not loopback and no `apiKey` is given.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const host = options.host ?? '127.0.0.1';
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  if (!isLoopbackHost(host) && !options.apiKey) {
    throw new ConfigError(`${options.name} options`, [{ path: 'apiKey', message: `required when binding the non-loopback address ${host}` }]);
  }
  const app = Fastify({
    bodyLimit: limits.maxBodyBytes,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    logger: false,
  });
  app.server.headersTimeout = limits.headersTimeoutMs;
  app.server.maxConnections = limits.maxConnections;
  const apiKey = options.apiKey;
  if (apiKey) {
    app.addHook('onRequest', async (req, reply) => {
      const auth = req.headers.authorization;
      const given = auth?.startsWith('Bearer ') ? auth.slice(7) : req.headers['x-api-key'];
      if (given !== apiKey) await reply.code(401).send({ error: 'missing or wrong API key' });
    });
  }
  let url: string | undefined;
  let closed = false;
  return {
    app,
    limits,
    async listen() {
      if (url) return url;
      await app.listen({ host, port: options.port ?? 0 });
      const addr = app.server.address() as AddressInfo;
      url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
    },
  };
}
