import { randomUUID } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import {
  BackendAuthError,
  BackendInputError,
  BackendRequestError,
  BackendUnavailableError,
  type AgentRLError,
  type BackendErrorCategory,
} from '../../errors/index.js';
import { retry, retryAfterMs, type RetryPolicy } from '../../util/retry.js';
import type { ResolvedTinkerOptions } from './options.js';
import { readBounded, startDeadline } from '../../util/http-bounds.js';
import { ResponseTooLargeError } from '../../errors/http-bound-errors.js';
import { httpStatusKind, isRetriedStatus } from '../../errors/http-status.js';
import { AGENTRL_VERSION } from './version.js';

/** `User-Agent` of every request: the hosted service's CDN challenges requests without one. */
export const TINKER_USER_AGENT = `agentrl/${AGENTRL_VERSION}`;

/** One HTTP answer, body read in full. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Media type without parameters, lower case, e.g. `application/json`. */
  readonly contentType: string;
  readonly body: Buffer;
}

/** A request body: JSON (serialised here) or raw bytes with their media type. */
export type HttpBody = { readonly json: unknown } | { readonly raw: Uint8Array; readonly contentType: string };

/** Per-request settings. */
export interface SendOptions {
  /** Total deadline of the exchange (headers and the whole body; a slow drip does not extend it), ms. */
  readonly timeoutMs: number;
  readonly accept?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** `X-Idempotency-Key` (POST only); one per logical call, kept across its HTTP retries. */
  readonly idempotencyKey?: string;
}

/** Media type of protobuf bodies. */
export const PROTOBUF = 'application/x-protobuf';

/**
 * A failure below HTTP: connection refused or reset, DNS, TLS, a connect or body timeout, or (`heldTooLong`) no
 * response headers within the deadline on an open connection — for a long poll, the server holding it.
 */
export class TransportFault extends Error {
  constructor(
    readonly url: string,
    readonly heldTooLong: boolean,
    options?: ErrorOptions,
  ) {
    super(
      `${url}: ${heldTooLong ? 'no answer within the deadline' : 'connection failed'}${options?.cause instanceof Error ? ` (${options.cause.message})` : ''}`,
      options,
    );
    this.name = 'TransportFault';
  }
}

/** An HTTP answer worth trying again (408, 429, 402, 5xx without an error body), thrown inside {@link TinkerHttp.call}'s retries. */
class RetryableAnswer extends Error {
  constructor(
    readonly status: number,
    /** The server's `retry-after` wait (429 and 402 only), ms. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${status}`);
  }
}

/**
 * The Tinker clients' policy (`retry` options): transport faults and retryable answers, exponential backoff
 * `min(initialDelayMs · 2^n, maxDelayMs)` (a server's `retry-after` wins, up to 60 s) until `budgetMs` would be
 * exceeded, counted from the first failure of a run.
 */
export function tinkerRetryPolicy(o: ResolvedTinkerOptions['retry']): RetryPolicy {
  return {
    budgetMs: o.budgetMs,
    backoff: { baseMs: o.initialDelayMs, capMs: o.maxDelayMs },
    retryable: (e) => e instanceof TransportFault || e instanceof RetryableAnswer,
  };
}

/** Parses a body as JSON, or returns undefined. */
export function jsonOf(a: HttpAnswer): unknown {
  if (a.body.length === 0) return undefined;
  try {
    return JSON.parse(a.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ error, category }` of a failed request (Tinker), or `undefined`. */
export function requestFailure(body: unknown): { message: string; category: BackendErrorCategory } | undefined {
  if (!isObj(body) || typeof body['error'] !== 'string') return undefined;
  const c = body['category'];
  const category: BackendErrorCategory = c === 'user' || c === 'server' ? c : 'unknown';
  return { message: body['error'], category };
}

/**
 * The message of an error body, or `undefined`: SkyRL / TuFT / FastAPI `{ detail }` (a string, or FastAPI's validation
 * list), or open-rl's failed future `{ type: "RequestFailedResponse", error_message }` (`src/server/gateway.py:233-235`).
 */
export function detailOf(body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  if (body['detail'] === undefined) return typeof body['error_message'] === 'string' ? body['error_message'] : undefined;
  const d = body['detail'];
  return typeof d === 'string' ? d : JSON.stringify(d);
}

/** The typed error of a `{ error, category }` failure. `user` → `BackendInputError`. */
export function failureError(op: string, f: { message: string; category: BackendErrorCategory }, status?: number): AgentRLError {
  if (f.category === 'user') return new BackendInputError(op, f.message);
  return new BackendRequestError(op, f.category, f.message, { status });
}

/** The typed error of a non-2xx answer that is not retried. */
export function answerError(op: string, url: string, a: HttpAnswer): AgentRLError {
  const body = jsonOf(a);
  const text = detailOf(body) ?? requestFailure(body)?.message ?? (a.body.length > 0 ? a.body.toString('utf8').slice(0, 500) : `HTTP ${a.status}`);
  const kind = httpStatusKind(a.status);
  if (kind === 'auth') return new BackendAuthError(url, a.status, text);
  // 415: the body's media type is refused (content negotiation falls back on it), whatever the body says.
  // 409: a seq_id reused with other content, or (saves) a checkpoint name that exists; callers tell them apart by op.
  if (kind === 'unsupported_media' || kind === 'conflict') return new BackendRequestError(op, 'unknown', text, { status: a.status });
  const failure = requestFailure(body);
  if (failure) return failureError(op, failure, a.status);
  if (kind === 'unprocessable') return new BackendInputError(op, text);
  return new BackendRequestError(op, kind === 'server' || kind === 'gateway' ? 'server' : 'unknown', text, { status: a.status });
}

/**
 * HTTP transport of the Tinker protocol over undici: `X-API-Key` auth, `X-Idempotency-Key` on every POST,
 * per-request deadlines, and retries of transport faults, 408, 429 and 5xx with exponential backoff.
 */
export class TinkerHttp {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  /** Where `X-API-Key` comes from: the API key, or (after `/client/config` enabled it) a JWT exchanged for it. */
  #credential: () => Promise<string | undefined>;
  readonly #dispatcher: Dispatcher;
  readonly #own: Agent | undefined;
  readonly #opts: ResolvedTinkerOptions;
  readonly #closing = new AbortController();

  constructor(opts: ResolvedTinkerOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl;
    this.#apiKey = opts.apiKey;
    this.#credential = async () => this.#apiKey;
    this.#own = opts.dispatcher ? undefined : new Agent({ connect: { timeout: opts.timeouts.connectMs }, keepAliveTimeout: 30_000 });
    this.#dispatcher = opts.dispatcher ?? (this.#own as Agent);
  }

  /** Aborted by `close()`: every wait and request in flight ends. */
  get signal(): AbortSignal {
    return this.#closing.signal;
  }

  /** Full URL of an API path, e.g. `url(tinkerPath('healthz'))`. */
  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** The API key this client was given (what a JWT exchange sends). */
  get apiKey(): string | undefined {
    return this.#apiKey;
  }

  /** Replaces the source of `X-API-Key` (the JWT provider); `undefined` goes back to the API key. */
  useCredential(source: (() => Promise<string | undefined>) | undefined): void {
    this.#credential = source ?? (async () => this.#apiKey);
  }

  /** A new `X-Idempotency-Key` value. */
  static idempotencyKey(): string {
    return `agentrl-${randomUUID()}`;
  }

  /**
   * One HTTP exchange, no retries. The answer is read within `o.timeoutMs` in total and refused past
   * `maxResponseBytes`; redirects are not followed (a 3xx is an answer like any other, never re-sent elsewhere).
   * @throws TransportFault below HTTP or past the deadline (`heldTooLong` when no headers came); ResponseTooLargeError;
   *   the closing reason after `close()`.
   */
  async send(method: 'GET' | 'POST' | 'DELETE', path: string, body: HttpBody | undefined, o: SendOptions & { credential?: false }): Promise<HttpAnswer> {
    const url = this.url(path);
    const signal = this.#closing.signal;
    if (signal.aborted) throw signal.reason;
    const headers: Record<string, string> = {
      ...this.#opts.extraHeaders,
      'user-agent': TINKER_USER_AGENT,
      accept: o.accept ?? 'application/json',
      ...o.headers,
    };
    const key = o.credential === false ? this.#apiKey : await this.#credential();
    if (key !== undefined) headers['x-api-key'] = key;
    let payload: string | Uint8Array | undefined;
    if (body !== undefined) {
      if ('json' in body) {
        payload = JSON.stringify(body.json);
        headers['content-type'] = 'application/json';
      } else {
        payload = body.raw;
        headers['content-type'] = body.contentType;
      }
    }
    if (method !== 'GET') headers['x-idempotency-key'] = o.idempotencyKey ?? TinkerHttp.idempotencyKey();
    const deadline = startDeadline(o.timeoutMs, signal);
    let headersCame = false;
    try {
      const res = await request(url, {
        method,
        headers,
        body: payload,
        dispatcher: this.#dispatcher,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
        signal: deadline.signal,
      });
      headersCame = true;
      const buf = await readBounded(res.body, this.#opts.maxResponseBytes, url, res.headers);
      const ct = res.headers['content-type'];
      const contentType = ((Array.isArray(ct) ? ct[0] : ct) ?? '').split(';')[0]!.trim().toLowerCase();
      return { status: res.statusCode, headers: res.headers, contentType, body: buf };
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      if (cause instanceof ResponseTooLargeError) throw cause;
      const code = (cause as { code?: unknown }).code;
      throw new TransportFault(url, code === 'UND_ERR_HEADERS_TIMEOUT' || (deadline.expired() && !headersCame), { cause });
    } finally {
      deadline.dispose();
    }
  }

  /**
   * A submit or synchronous call: retries transport faults, 408, 429, 402 (billing pause) and 5xx answers without an error body
   * (SkyRL's `{ detail }` 500 is final), with backoff within the retry budget, keeping one idempotency key.
   * @returns the 2xx answer.
   * @throws BackendUnavailableError when the budget runs out; BackendAuthError (401/403); BackendInputError
   *   (`category: "user"`, 422); BackendRequestError for other answers (409: a `seq_id` reused with other content).
   */
  async call(
    op: string,
    path: string,
    body: HttpBody | undefined,
    o: Partial<SendOptions> & { method?: 'GET' | 'POST' | 'DELETE'; credential?: false } = {},
  ): Promise<HttpAnswer> {
    const key = TinkerHttp.idempotencyKey();
    const url = this.url(path);
    const attempt = async (): Promise<HttpAnswer> => {
      const a = await this.send(o.method ?? 'POST', path, body, { timeoutMs: this.#opts.timeouts.requestMs, ...o, idempotencyKey: key });
      if (a.status >= 200 && a.status < 300) return a;
      const kind = httpStatusKind(a.status);
      const final5xx = (kind === 'server' || kind === 'gateway') && (detailOf(jsonOf(a)) !== undefined || requestFailure(jsonOf(a)) !== undefined);
      if (!isRetriedStatus('tinker', a.status) || final5xx) throw answerError(op, url, a);
      throw new RetryableAnswer(a.status, kind === 'rate_limited' || kind === 'payment' ? retryAfterMs(a.headers) : undefined);
    };
    try {
      return await retry(attempt, tinkerRetryPolicy(this.#opts.retry), this.#closing.signal);
    } catch (e) {
      if (!(e instanceof TransportFault || e instanceof RetryableAnswer)) throw e;
      throw new BackendUnavailableError(url, `${op}: no usable answer within the retry budget of ${this.#opts.retry.budgetMs} ms (last: ${e.message})`);
    }
  }

  /** Ends waits and requests in flight (they reject) and closes the built-in dispatcher. An injected one stays open. */
  async close(reason: Error): Promise<void> {
    if (!this.#closing.signal.aborted) this.#closing.abort(reason);
    await this.#own?.destroy().catch(() => undefined);
  }
}
