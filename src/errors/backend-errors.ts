import { AgentRLError } from './base.js';

/** Input a backend cannot accept: a token id outside the vocabulary, a sequence longer than the context, an empty batch. */
export class BackendInputError extends AgentRLError {
  /** Stable identifier of this error class (`'BACKEND_INPUT'`), kept by minifiers: match on it. */
  static readonly code = 'BACKEND_INPUT' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'BACKEND_INPUT' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The field at fault (a dotted path or a response field). */
    readonly field: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${field}: ${message}`, options);
    this.name = 'BackendInputError';
  }
}

/** A checkpoint could not be saved or loaded. */
export class CheckpointError extends AgentRLError {
  /** Stable identifier of this error class (`'CHECKPOINT'`), kept by minifiers: match on it. */
  static readonly code = 'CHECKPOINT' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'CHECKPOINT' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CheckpointError';
  }
}

/**
 * A remote training service could not be reached, or kept failing (connection refused or reset, timeouts,
 * 5xx without a result) until the retry budget ran out. `url` names the endpoint tried last. Retryable.
 */
export class BackendUnavailableError extends AgentRLError {
  /** Stable identifier of this error class (`'BACKEND_UNAVAILABLE'`), kept by minifiers: match on it. */
  static readonly code = 'BACKEND_UNAVAILABLE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'BACKEND_UNAVAILABLE' as const;
  /** Always true: retrying the same operation may succeed. */
  override readonly retryable = true;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The URL the request went to. */
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${url}: ${message}`, options);
    this.name = 'BackendUnavailableError';
  }
}

/** The remote training service refused the credentials (HTTP 401 or 403). `status` is the HTTP status. */
export class BackendAuthError extends AgentRLError {
  /** Stable identifier of this error class (`'BACKEND_AUTH'`), kept by minifiers: match on it. */
  static readonly code = 'BACKEND_AUTH' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'BACKEND_AUTH' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The URL the request went to. */
    readonly url: string,
    /** HTTP status of the answer, when there was one. */
    readonly status: number,
    message: string,
  ) {
    super(`${url}: HTTP ${status}: ${message}`);
    this.name = 'BackendAuthError';
  }
}

/** Failure category a Tinker-protocol server reports with a failed request (`{ error, category }`). */
export type BackendErrorCategory = 'server' | 'user' | 'unknown';

/**
 * The remote training service failed a request: a `{ error, category }` result of a future (category `server`
 * or `unknown`; `user` is a {@link BackendInputError}), an HTTP error answer (`status`, e.g. 409 when a `seq_id` was
 * reused with other content, 404 for an unknown model or future), or a body that does not follow the protocol.
 */
export class BackendRequestError extends AgentRLError {
  /** Stable identifier of this error class (`'BACKEND_REQUEST'`), kept by minifiers: match on it. */
  static readonly code = 'BACKEND_REQUEST' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'BACKEND_REQUEST' as const;
  /** HTTP status when the failure was an HTTP answer. */
  readonly status: number | undefined;
  /** Creates the error; each `readonly` parameter becomes the property of the same name; `options.status` becomes `status`. */
  constructor(
    /** The operation, e.g. `forward_backward`. */
    readonly operation: string,
    /** The failure category the server reported. */
    readonly category: BackendErrorCategory,
    message: string,
    options: { readonly status?: number | undefined } & ErrorOptions = {},
  ) {
    const { status } = options;
    super(`${operation} failed (${category}${status !== undefined ? `, HTTP ${status}` : ''}): ${message}`, options);
    this.name = 'BackendRequestError';
    this.status = status;
  }
}
