import { AgentRLError } from 'agentrl/internal';

/** Tinker's `RequestErrorCategory` (lowercase on the wire). */
export type ErrorCategory = 'user' | 'server' | 'unknown';

/**
 * A request `agentrl serve` refuses synchronously: answered with HTTP `status` and `{error, category}`
 * (e.g. 404 for an unknown model or session, 409 for a reused `seq_id`, 400 past a request limit, 429/503 past a
 * load limit). `retryAfterS`, when set, is sent as `Retry-After` (load refusals: the same request may succeed later).
 */
export class ServeRequestError extends AgentRLError {
  /** Stable identifier of this error class (`'SERVE_REQUEST'`), kept by minifiers: match on it. */
  static readonly code = 'SERVE_REQUEST' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SERVE_REQUEST' as const;
  /** The failure category answered with the error (`{error, category}`). */
  readonly category: ErrorCategory;
  /** Sent as `Retry-After` (seconds) when set. */
  readonly retryAfterS: number | undefined;
  /** The HTTP status answered (400, 404, 409, 429, 503, …). */
  readonly status: number;
  /** `status`: the HTTP status answered; `options.category` defaults to `'user'`. */
  constructor(status: number, message: string, options: { readonly category?: ErrorCategory; readonly retryAfterS?: number | undefined } & ErrorOptions = {}) {
    super(message, options);
    this.name = 'ServeRequestError';
    this.status = status;
    this.category = options.category ?? 'user';
    this.retryAfterS = options.retryAfterS;
  }
}

const USER_CODES = new Set(['BACKEND_INPUT', 'CONFIG_INVALID', 'CHECKPOINT', 'DATUM_SHAPE', 'SERVE_REQUEST']);

/**
 * `{error, category}` for a failed future: errors caused by the request (bad tokens, shapes, paths, options)
 * are `user`; anything else is `server`.
 */
export function errorBody(e: unknown): { error: string; category: ErrorCategory } {
  const user = AgentRLError.isInstance(e) && USER_CODES.has(e.code);
  return { error: e instanceof Error ? e.message : String(e), category: user ? 'user' : 'server' };
}
