/**
 * The one reading of an HTTP error status for every agentrl client (Tinker backend, OpenAI-compatible sampler and
 * judge, retriever, remote sandbox, AI SDK policy endpoint): the status's kind, and which kinds each client family
 * retries. Each family then throws its own error class for the kind (`BackendAuthError` for `auth`,
 * `SamplerHttpError`, `RetrieverError`, `SandboxUnavailableError`, …), and its retry loop reads `err.retryable`.
 * The families differ on purpose, by protocol: a Tinker 409 is a `seq_id` reused with other content (final), while
 * OpenAI servers answer 409 for a transient lock (openai-node retries it, `src/client.ts` `shouldRetry`); a
 * SandboxFusion 500 is the sandbox's own deterministic failure, while 502/503/504 come from a proxy or a restart.
 */
export type HttpStatusKind =
  /** 401, 403: the credentials are refused. */
  | 'auth'
  /** 402: billing pause (Tinker), lifted later. */
  | 'payment'
  /** 408: the server timed the request out. */
  | 'request_timeout'
  /** 409: a conflict (what with depends on the protocol). */
  | 'conflict'
  /** 415: the body's media type is refused. */
  | 'unsupported_media'
  /** 422: the request is well-formed but its content is invalid. */
  | 'unprocessable'
  /** 429: too many requests; `retry-after` says when to come back. */
  | 'rate_limited'
  /** 502, 503, 504: a proxy, a restart or an overloaded server. */
  | 'gateway'
  /** Any other status ≥ 500. */
  | 'server'
  /** Any other status in [400, 500). */
  | 'client'
  /** Below 400: not an error status (redirects are refused before this is asked). */
  | 'not_error';

/** The kind of HTTP status `status` (see {@link HttpStatusKind}). */
export function httpStatusKind(status: number): HttpStatusKind {
  switch (status) {
    case 401:
    case 403:
      return 'auth';
    case 402:
      return 'payment';
    case 408:
      return 'request_timeout';
    case 409:
      return 'conflict';
    case 415:
      return 'unsupported_media';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    case 502:
    case 503:
    case 504:
      return 'gateway';
    default:
      return status >= 500 ? 'server' : status >= 400 ? 'client' : 'not_error';
  }
}

/** The client families of agentrl, each with its own retry rule over {@link HttpStatusKind}. */
export type HttpClientFamily = 'tinker' | 'openai' | 'retriever' | 'sandbox';

const RETRIED: Readonly<Record<HttpClientFamily, ReadonlySet<HttpStatusKind>>> = {
  // Tinker: 408, 429, 402 (billing pause) and 5xx; a 5xx that carries an error body is final (see tinker/http.ts).
  tinker: new Set(['request_timeout', 'rate_limited', 'payment', 'gateway', 'server']),
  // OpenAI-compatible servers (sampler, judge, policy endpoint): 408, 409, 429 and 5xx, as openai-node.
  openai: new Set(['request_timeout', 'conflict', 'rate_limited', 'gateway', 'server']),
  // Retrieval servers: 5xx.
  retriever: new Set(['gateway', 'server']),
  // SandboxFusion servers: 502, 503, 504 (a 500 is the sandbox's own failure, final).
  sandbox: new Set(['gateway']),
};

/** True when a client of `family` retries an answer with HTTP `status` (transport faults are retried apart). */
export function isRetriedStatus(family: HttpClientFamily, status: number): boolean {
  return RETRIED[family].has(httpStatusKind(status));
}
