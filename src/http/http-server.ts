import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigError } from '../errors/config-error.js';
import { digestKeys, matchApiKey, presentedKey } from './api-key.js';
import { BodyBudget, HttpRefusal, meterBody } from './body-budget.js';
import { clientGone } from './client-signal.js';
import { FairAdmission } from './fair-admission.js';
import { DEFAULT_HTTP_LIMITS, effectiveMaxConnections, resolveHttpLimits, type HttpLimits } from './limits.js';
import { isLoopbackHost } from './loopback.js';
import { checkBrowserOrigin, fromBrowser } from './origin-guard.js';

export { DEFAULT_HTTP_LIMITS, isLoopbackHost, type HttpLimits };

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `false` exempts the route from the in-flight limit and fair queue (health checks such as
     * `GET /v1/ping`, which must answer while the server is saturated). @default true
     */
    admission?: boolean;
    /** `false`: the route needs no API key (it checks a capability of its own, e.g. a signed download URL). */
    apiKey?: boolean;
    /**
     * `Content-Encoding`s the route decodes itself, lower case (e.g. `['zstd']`), each within a bound of its own on the
     * decompressed size. Any other encoding is answered 415 before the body is read. @default [] (identity only)
     */
    contentEncodings?: readonly string[];
  }
}

/** Body of an error the layer itself answers (401, 403, 415, 503): `status` is the HTTP status, `code` a stable string. */
export interface HttpErrorInfo {
  readonly status: number;
  /** `UNAUTHORIZED`, `CROSS_ORIGIN`, `UNSUPPORTED_MEDIA_TYPE`, `BODY_BUDGET`, `OVERLOADED`. */
  readonly code: string;
  readonly message: string;
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
   * Required (this or `apiKeys`) when `host` is not a loopback address.
   */
  readonly apiKey?: string;
  /** Several accepted keys (one per client); each key is then its own client for fairness. Combined with `apiKey`. */
  readonly apiKeys?: readonly string[];
  /**
   * Another place a request may present the key, tried when its headers carry none (the dashboard's HttpOnly
   * session cookie). Return the key itself; it is checked like a header key. @default none
   */
  readonly keyFromRequest?: (request: FastifyRequest) => string | undefined;
  /**
   * Accepts a credential that is not one of the keys (a short-lived token exchanged for one): the index of the key
   * (in `apiKey`, then `apiKeys` order) it stands for, or -1. @default none (only the keys themselves)
   */
  readonly verifyToken?: (presented: string) => number;
  /** Overrides of the default {@link HttpLimits}. */
  readonly limits?: Partial<HttpLimits>;
  /** Browser origins allowed besides the server's own, e.g. `['http://localhost:5173']`. @default [] */
  readonly allowedOrigins?: readonly string[];
  /** Extra `Host` names accepted on a loopback bind (DNS-rebinding guard), lower case, no port. @default [] */
  readonly allowedHosts?: readonly string[];
  /**
   * Parse `text/plain` bodies as JSON when the request does not come from a browser (no `Origin`,
   * no `Sec-Fetch-Site`), for clients that post JSON without a content type. Browser `text/plain`
   * posts (the CSRF vector) always get 415. @default true
   */
  readonly textPlainJson?: boolean;
  /** Client identity for per-client fairness. @default the API key's index when several keys are set, else the remote address */
  readonly clientKey?: (request: FastifyRequest) => string;
  /** Body of the layer's own error answers. @default `({ code, message }) => ({ error: message, code })` */
  readonly errorBody?: (info: HttpErrorInfo) => unknown;
}

/** Counters of a running {@link HttpServer}. */
export interface HttpServerStats {
  /** Open TCP connections. */
  readonly connections: number;
  /** Connections closed at accept because `maxConnections` were open, or `maxConnectionsPerClient` from that address. */
  readonly droppedConnections: number;
  /** Requests holding an in-flight slot. */
  readonly inFlight: number;
  /** Requests waiting for one. */
  readonly queued: number;
  /** Request body bytes held now / at most so far (see `maxBufferedBodyBytes`). */
  readonly bufferedBodyBytes: number;
  /** The most request body bytes held at once since the server started. */
  readonly peakBufferedBodyBytes: number;
  /** Requests answered 503 by load shedding (queue full or timed out, body budget spent). */
  readonly shed: number;
  /** The connection limit in force (after the file-descriptor headroom). */
  readonly maxConnections: number;
}

/** A server made by {@link createHttpServer}: register routes on `app`, then `listen()`. */
export interface HttpServer {
  /** The Fastify instance: add routes or plugins before {@link HttpServer.listen}. */
  readonly app: FastifyInstance;
  /** The limits in force. */
  readonly limits: HttpLimits;
  /**
   * Starts listening; resolves to the base URL, e.g. `http://127.0.0.1:41234`. `host`/`port`
   * override the options' ones.
   * @throws ConfigError when the address is not loopback and no API key is set.
   */
  listen(at?: { readonly host?: string; readonly port?: number }): Promise<string>;
  /** Stops accepting connections and ends open ones (in-flight requests see {@link clientGone} abort). Idempotent. */
  close(): Promise<void>;
  /** Live counters. */
  stats(): HttpServerStats;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The `Content-Encoding` a route does not decode, or undefined. No server decompresses on its own (a body that would
 * inflate past the body limit is a bomb), so only `identity` and the route's own `contentEncodings` pass.
 */
function refusedEncoding(header: string | string[] | undefined, accepted: readonly string[]): string | undefined {
  if (header === undefined) return undefined;
  const value = (Array.isArray(header) ? header.join(',') : header).trim().toLowerCase();
  if (value === '' || value === 'identity' || accepted.includes(value)) return undefined;
  return value.slice(0, 64);
}

function requireKeyFor(name: string, host: string, keyed: boolean): void {
  if (!isLoopbackHost(host) && !keyed) {
    throw new ConfigError(`${name} options`, [{ path: 'apiKey', message: `required when binding the non-loopback address ${host}` }]);
  }
}

/**
 * One hardened HTTP layer for every agentrl server (Fastify underneath). What it enforces, before any
 * route handler runs:
 * - header and whole-request deadlines (408 and close), idle keep-alive timeout, `maxBodyBytes` (413);
 * - at most `maxConnections` sockets (`maxConnectionsPerClient` per remote address), kept `fdHeadroom` below `RLIMIT_NOFILE`;
 * - a server-wide budget for request bodies in memory (503 and close beyond it);
 * - API key (401), required on non-loopback binds;
 * - no browser cross-origin or DNS-rebinding requests (403), no browser `text/plain` bodies (415);
 * - at most `maxInFlight` requests in handlers, `maxInFlightPerClient` per client, the rest in a fair
 *   bounded queue (503 with `Retry-After` when it is full or the wait exceeds `queueTimeoutMs`).
 * Handlers get {@link clientGone} to stop work for clients that left.
 * @throws ConfigError for invalid limits, or when `host` is not loopback and no API key is given.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const defaultHost = options.host ?? '127.0.0.1';
  const limits = resolveHttpLimits(options.name, options.limits);
  const keys = [...(options.apiKey !== undefined ? [options.apiKey] : []), ...(options.apiKeys ?? [])];
  if (keys.some((k) => k.length === 0)) throw new ConfigError(`${options.name} options`, [{ path: 'apiKey', message: 'must not be empty' }]);
  requireKeyFor(options.name, defaultHost, keys.length > 0);
  const keyDigests = digestKeys(keys);
  const errorBody = options.errorBody ?? ((i: HttpErrorInfo) => ({ error: i.message, code: i.code }));
  const textPlainJson = options.textPlainJson ?? true;
  const maxConnections = effectiveMaxConnections(limits);
  const budget = new BodyBudget(limits.maxBufferedBodyBytes);
  const admission = new FairAdmission(limits);
  let connections = 0;
  let dropped = 0;
  let shed = 0;
  let boundHost = defaultHost;

  const app = Fastify({
    bodyLimit: limits.maxBodyBytes,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    forceCloseConnections: true,
    return503OnClosing: true,
    logger: false,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the header and request deadlines; the default (30 s) would let a
      // stalled request live up to 30 s past its deadline.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
    },
  });
  const server = app.server;
  server.maxConnections = maxConnections;
  const perAddress = new Map<string, number>();
  let perClientCap = limits.maxConnectionsPerClient ?? maxConnections;
  server.on('connection', (socket: Socket) => {
    const addr = socket.remoteAddress ?? '';
    const mine = (perAddress.get(addr) ?? 0) + 1;
    if (mine > perClientCap) {
      dropped += 1;
      socket.destroy();
      return;
    }
    perAddress.set(addr, mine);
    connections += 1;
    socket.once('close', () => {
      connections -= 1;
      const n = (perAddress.get(addr) ?? 1) - 1;
      if (n === 0) perAddress.delete(addr);
      else perAddress.set(addr, n);
    });
  });
  // At the limit a new connection is closed at accept. Idle keep-alive connections are not closed to
  // make room: under a flood that would hand their slots to the flood and cut off the clients already
  // served. Stalled connections are cut by the deadlines instead.
  server.on('drop', () => {
    dropped += 1;
  });

  const refuse = (reply: FastifyReply, info: HttpErrorInfo, close = false): FastifyReply => {
    if (info.status === 503) {
      shed += 1;
      void reply.header('retry-after', '1');
    }
    if (close) void reply.header('connection', 'close');
    return reply.code(info.status).type('application/json').send(errorBody(info));
  };

  const clientOf = new WeakMap<object, string>();
  app.addHook('onRequest', async (req, reply) => {
    const why = checkBrowserOrigin(req.headers, {
      loopbackBind: isLoopbackHost(boundHost),
      allowedHosts: options.allowedHosts ?? [],
      allowedOrigins: options.allowedOrigins ?? [],
    });
    if (why !== undefined) return refuse(reply, { status: 403, code: 'CROSS_ORIGIN', message: why });
    const encoding = refusedEncoding(req.headers['content-encoding'], req.routeOptions.config?.contentEncodings ?? []);
    if (encoding !== undefined) {
      return refuse(reply, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: `Content-Encoding '${encoding}' is not accepted here` }, true);
    }
    let client = req.socket.remoteAddress ?? 'unknown';
    if (keyDigests.length > 0 && req.routeOptions.config?.apiKey !== false) {
      const presented = presentedKey(req.headers) ?? options.keyFromRequest?.(req);
      let i = matchApiKey(presented, keyDigests);
      if (i < 0 && presented !== undefined && options.verifyToken) i = options.verifyToken(presented);
      if (i < 0)
        return refuse(reply, {
          status: 401,
          code: 'UNAUTHORIZED',
          message: options.verifyToken ? 'missing or wrong API key, or an expired access token' : 'missing or wrong API key',
        });
      if (keyDigests.length > 1) client = `key#${i}`;
    }
    clientOf.set(req.raw, options.clientKey ? options.clientKey(req) : client);
  });

  app.addHook('preParsing', async (req, reply, payload) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (!chunked && !(declared > 0)) return payload;
    // Oversized declared bodies are Fastify's 413; they are never read.
    if (declared > limits.maxBodyBytes) return payload;
    const reserve = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    if (!budget.reserve(reserve)) throw new HttpRefusal(503, 'BODY_BUDGET', 'server busy: too many request bodies in progress');
    let held = reserve;
    reply.raw.once('close', () => budget.release(held));
    const metered = meterBody(budget, reserve, (n) => (held += n));
    payload.on('error', (e) => metered.destroy(e));
    metered.on('error', () => {}); // Fastify reports it when it reads the body; ignored when it never does
    return payload.pipe(metered);
  });

  app.addHook('onError', async (_req, reply, error) => {
    if (error instanceof HttpRefusal) {
      if (error.statusCode === 503) {
        shed += 1;
        void reply.header('retry-after', '1');
      }
      void reply.header('connection', 'close');
    }
  });

  // Fastify's JSON parser (prototype-poisoning keys refused) for `application/json` and `application/*+json`.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, defaultJson);
  // Bodies without a JSON content type: `text/plain` (what a web page can send cross-origin without a
  // preflight) and no content type at all are parsed as JSON only for non-browser clients; every
  // other type (forms, multipart) is 415.
  const lenientJson = (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void => {
    const ct = req.headers['content-type'];
    const plain = ct === undefined || /^text\/plain\s*(?:;|$)/i.test(ct);
    if (!plain || !textPlainJson || fromBrowser(req.headers)) {
      done(Object.assign(new Error('Content-Type must be application/json'), { statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }));
      return;
    }
    if ((body as string).length === 0) {
      done(null, undefined);
      return;
    }
    defaultJson(req, body as string, done);
  };
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, lenientJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, lenientJson);

  app.addHook('preHandler', async (req, reply) => {
    if (req.routeOptions.config.admission === false || req.is404) return;
    const client = clientOf.get(req.raw) ?? req.socket.remoteAddress ?? 'unknown';
    const got = await admission.acquire(client, clientGone(reply));
    if (!got.ok) {
      if (reply.raw.destroyed) return reply;
      const message = got.reason === 'queue_timeout' ? `server busy: no slot within ${limits.queueTimeoutMs} ms` : 'server busy: too many requests in progress';
      return refuse(reply, { status: 503, code: 'OVERLOADED', message });
    }
    if (reply.raw.destroyed || reply.raw.closed) {
      got.release();
      return reply;
    }
    reply.raw.once('close', got.release);
    return undefined;
  });

  let url: string | undefined;
  let closed = false;
  return {
    app,
    limits,
    async listen(at = {}) {
      if (url) return url;
      const host = at.host ?? defaultHost;
      requireKeyFor(options.name, host, keys.length > 0);
      boundHost = host;
      if (limits.maxConnectionsPerClient === undefined && !isLoopbackHost(host)) perClientCap = Math.max(8, Math.floor(maxConnections / 4));
      await app.listen({ host, port: at.port ?? options.port ?? 0 });
      const addr = server.address() as AddressInfo;
      url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      admission.close();
      await app.close();
    },
    stats() {
      return {
        connections,
        droppedConnections: dropped,
        inFlight: admission.inFlight,
        queued: admission.queued,
        bufferedBodyBytes: budget.used,
        peakBufferedBodyBytes: budget.peak,
        shed,
        maxConnections,
      };
    },
  };
}
