import { readFileSync } from 'node:fs';
import { z } from '../util/zod.js';
import { ConfigError } from '../errors/config-error.js';

/**
 * Limits every agentrl HTTP server applies (sandbox-serve, the retrieval server, `agentrl serve`, the dashboard).
 * All durations in ms, sizes in bytes. See `docs/security.md` (## Servers) for what each one bounds.
 */
export interface HttpLimits {
  /** Largest request body accepted; larger ones get 413 (a declared `Content-Length` is refused before reading). @default 16_777_216 (16 MiB) */
  readonly maxBodyBytes: number;
  /**
   * Time allowed to receive a whole request (headers and body); a stalled body is cut with 408 and the
   * connection closed. Counts from the first byte of the request, not the handler's run time. @default 30_000
   */
  readonly requestTimeoutMs: number;
  /** Time allowed to receive the request headers (slowloris), then 408 and close. @default 10_000 */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection (no request in progress) is closed after this long. @default 5_000 */
  readonly keepAliveTimeoutMs: number;
  /**
   * Open connections at most; further ones are closed at accept. Lowered at start to leave `fdHeadroom` file descriptors free below the
   * process's `RLIMIT_NOFILE`, so that handlers (sandbox workers, files) and new pings still get descriptors.
   * @default 256
   */
  readonly maxConnections: number;
  /**
   * Open connections from one remote address; further ones are closed at accept, so that one host
   * cannot hold every slot. Loopback clients all share one address, so on a loopback bind this
   * stays at `maxConnections` unless set. @default `maxConnections` on a loopback bind, else a quarter of it (at least 8)
   */
  readonly maxConnectionsPerClient?: number;
  /** File descriptors kept free below the soft `RLIMIT_NOFILE` (see `maxConnections`). @default 128 */
  readonly fdHeadroom: number;
  /**
   * Bytes of request bodies held at once across all connections (counted from the first byte read
   * until the response is finished). A request whose body would exceed it gets 503 and its connection closed.
   * @default 134_217_728 (128 MiB)
   */
  readonly maxBufferedBodyBytes: number;
  /** Requests handled at once (after their body arrived); routes marked `config: { admission: false }` are not counted. @default 256 */
  readonly maxInFlight: number;
  /** Requests of one client handled at once (client = API key when several are configured, else remote address). @default `maxInFlight` */
  readonly maxInFlightPerClient: number;
  /**
   * Requests waiting for an in-flight slot; beyond it the newest waiter of the client with the most
   * waiters is refused with 503 (or the new request, when it is that client's). 0: refuse at once. @default 1024
   */
  readonly maxQueued: number;
  /** Longest wait for an in-flight slot before 503. @default 30_000 */
  readonly queueTimeoutMs: number;
}

/** Default {@link HttpLimits}. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  fdHeadroom: 128,
  maxBufferedBodyBytes: 128 * 1024 * 1024,
  maxInFlight: 256,
  maxInFlightPerClient: 256,
  maxQueued: 1024,
  queueTimeoutMs: 30_000,
};

const pos = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31);
const limitsSchema = z
  .object({
    maxBodyBytes: pos,
    requestTimeoutMs: pos,
    headersTimeoutMs: pos,
    keepAliveTimeoutMs: pos,
    maxConnections: pos,
    maxConnectionsPerClient: pos.optional(),
    fdHeadroom: z
      .number()
      .int()
      .min(0)
      .max(1 << 20),
    maxBufferedBodyBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    maxInFlight: pos,
    maxInFlightPerClient: pos,
    maxQueued: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31),
    queueTimeoutMs: pos,
  })
  .strict();

/**
 * Fills defaults and validates. `maxInFlightPerClient` defaults to `maxInFlight`; `headersTimeoutMs`
 * is lowered to `requestTimeoutMs` (Node requires headers ≤ request).
 * @throws ConfigError naming each bad field as `<name>.limits.<field>`.
 */
export function resolveHttpLimits(name: string, partial: Partial<HttpLimits> | undefined): HttpLimits {
  const merged = {
    ...DEFAULT_HTTP_LIMITS,
    ...(partial?.maxInFlight !== undefined ? { maxInFlightPerClient: partial.maxInFlight } : {}),
    ...partial,
  };
  const parsed = limitsSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(
      `${name} options`,
      parsed.error.issues.map((i) => ({ path: ['limits', ...i.path.map(String)].join('.'), message: i.message })),
    );
  }
  const l = parsed.data;
  return { ...l, headersTimeoutMs: Math.min(l.headersTimeoutMs, l.requestTimeoutMs), maxInFlightPerClient: Math.min(l.maxInFlightPerClient, l.maxInFlight) };
}

/** Soft `RLIMIT_NOFILE` of this process (from `/proc/self/limits`), or undefined where unknown (non-Linux, unlimited). */
export function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    const n = Number(soft);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** `maxConnections` lowered so that `fdHeadroom` descriptors stay free below `nofile` (at least 1 connection). */
export function effectiveMaxConnections(limits: HttpLimits, nofile: number | undefined = openFilesLimit()): number {
  if (nofile === undefined) return limits.maxConnections;
  return Math.max(1, Math.min(limits.maxConnections, nofile - limits.fdHeadroom));
}
