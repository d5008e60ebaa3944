import { z } from '../../src/util/zod.js';
import type { Dispatcher } from 'undici';
import { ConfigError } from '../../src/errors/config-error.js';

/** Options of {@link remoteSandbox}. Times in ms, sizes in bytes. Give `url` or `urls`, not both. */
export interface RemoteSandboxOptions {
  /** Base URL of one SandboxFusion-compatible server, e.g. `http://10.0.0.5:8080` (`/run_code` is appended). */
  readonly url?: string;
  /** Several servers; each call goes to the healthy one with the fewest outstanding requests. */
  readonly urls?: readonly string[];
  /** Language sent as `language`. @default 'python' (`'nodejs'` for an isolated-vm server) */
  readonly language?: string;
  /** In-flight calls allowed per server (client-side cap; also the undici pool's connections). @default 8 */
  readonly concurrency?: number;
  /** Calls allowed to wait for a slot; beyond it `run` fails at once with SandboxUnavailableError. @default 10000 */
  readonly maxQueue?: number;
  /** Longest wait for a slot before `run` fails with SandboxTimeoutError. @default 60000 */
  readonly queueTimeoutMs?: number;
  /** Default per-call code time limit (`run_timeout`); a request's `timeoutMs` overrides it. @default 10000 */
  readonly timeoutMs?: number;
  /** `compile_timeout` sent to the server, ms. @default 10000 */
  readonly compileTimeoutMs?: number;
  /** HTTP slack over the code limit: one attempt may take `timeoutMs + requestSlackMs`. @default 5000 */
  readonly requestSlackMs?: number;
  /** `memory_limit_MB` sent to the server; omitted when unset (SandboxFusion#70: limits can break the server). */
  readonly memoryLimitMb?: number;
  /** Retries per call on transport errors, 502/503/504 and `SandboxError`. Never on a code failure. @default 2 */
  readonly retries?: number;
  /** First back-off ceiling, ms (full jitter, doubling per retry). @default 100 */
  readonly backoffBaseMs?: number;
  /** Back-off ceiling cap, ms. @default 2000 */
  readonly backoffCapMs?: number;
  /** Fraction of first attempts that may be retried once the initial tokens are spent. @default 0.2 */
  readonly retryBudgetRatio?: number;
  /** Interval of `GET /v1/ping` health checks of servers marked unhealthy, ms. @default 2000 */
  readonly healthCheckIntervalMs?: number;
  /** TCP connect timeout, ms. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Largest response body accepted, bytes. @default 16 MiB */
  readonly maxResponseBytes?: number;
  /** API key sent as `Authorization: Bearer KEY` (servers started with `agentrl sandbox-serve --api-key`). */
  readonly apiKey?: string;
  /** Replaces the per-server undici `Pool` (tests inject a MockAgent); called once per URL. */
  readonly dispatcher?: (url: string) => Dispatcher;
  /** Uniform [0,1) source for jitter (tests). @default Math.random */
  readonly random?: () => number;
}

/** {@link RemoteSandboxOptions} with defaults filled in. */
export interface ResolvedRemoteOptions {
  readonly urls: readonly string[];
  readonly language: string;
  readonly concurrency: number;
  readonly maxQueue: number;
  readonly queueTimeoutMs: number;
  readonly timeoutMs: number;
  readonly compileTimeoutMs: number;
  readonly requestSlackMs: number;
  readonly memoryLimitMb: number | undefined;
  readonly retries: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  readonly retryBudgetRatio: number;
  readonly healthCheckIntervalMs: number;
  readonly connectTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly apiKey: string | undefined;
  readonly dispatcher: ((url: string) => Dispatcher) | undefined;
  readonly random: () => number;
}

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'expected an http(s) URL');
const positiveInt = z.number().int().positive();
const schema = z.strictObject({
  url: httpUrl.optional(),
  urls: z.array(httpUrl).min(1).optional(),
  language: z.string().min(1).optional(),
  concurrency: positiveInt.max(4096).optional(),
  maxQueue: z.number().int().min(0).optional(),
  queueTimeoutMs: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
  compileTimeoutMs: positiveInt.optional(),
  requestSlackMs: z.number().int().min(0).optional(),
  memoryLimitMb: positiveInt.optional(),
  retries: z.number().int().min(0).max(20).optional(),
  backoffBaseMs: z.number().int().min(0).optional(),
  backoffCapMs: z.number().int().min(0).optional(),
  retryBudgetRatio: z.number().min(0).max(1).optional(),
  healthCheckIntervalMs: positiveInt.optional(),
  connectTimeoutMs: positiveInt.optional(),
  maxResponseBytes: positiveInt.optional(),
  apiKey: z.string().min(1).optional(),
  dispatcher: z.custom<unknown>((v) => typeof v === 'function', 'expected a function').optional(),
  random: z.custom<unknown>((v) => typeof v === 'function', 'expected a function').optional(),
});

/**
 * Validates and fills defaults.
 * @throws ConfigError listing every bad key as `remote.<key>`, or when neither/both of `url`, `urls` are given.
 */
export function resolveRemoteOptions(opts: RemoteSandboxOptions): ResolvedRemoteOptions {
  const parsed = schema.safeParse(opts);
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => ({ path: ['remote', ...i.path.map(String)].join('.'), message: i.message }));
  if ((opts.url === undefined) === (opts.urls === undefined)) {
    issues.push({ path: 'remote.url', message: 'give exactly one of `url` and `urls`' });
  }
  if (issues.length > 0) throw new ConfigError('remoteSandbox options', issues);
  return {
    urls: opts.urls ?? [opts.url as string],
    language: opts.language ?? 'python',
    concurrency: opts.concurrency ?? 8,
    maxQueue: opts.maxQueue ?? 10_000,
    queueTimeoutMs: opts.queueTimeoutMs ?? 60_000,
    timeoutMs: opts.timeoutMs ?? 10_000,
    compileTimeoutMs: opts.compileTimeoutMs ?? 10_000,
    requestSlackMs: opts.requestSlackMs ?? 5000,
    memoryLimitMb: opts.memoryLimitMb,
    retries: opts.retries ?? 2,
    backoffBaseMs: opts.backoffBaseMs ?? 100,
    backoffCapMs: opts.backoffCapMs ?? 2000,
    retryBudgetRatio: opts.retryBudgetRatio ?? 0.2,
    healthCheckIntervalMs: opts.healthCheckIntervalMs ?? 2000,
    connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
    maxResponseBytes: opts.maxResponseBytes ?? 16 * 1024 * 1024,
    apiKey: opts.apiKey,
    dispatcher: opts.dispatcher,
    random: opts.random ?? Math.random,
  };
}
