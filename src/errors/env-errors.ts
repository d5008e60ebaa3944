import { AgentRLError } from './base.js';

/**
 * A retrieval service failed: connection refused, a non-2xx status, a malformed body, or no answer
 * within `timeoutMs`. `status` is the HTTP status when there was a response. Retryable for
 * transport faults, timeouts and 5xx; not for 4xx or malformed bodies.
 * The search environment turns it into an error observation; it only escapes when a retriever is used directly.
 */
export class RetrieverError extends AgentRLError {
  /** Stable identifier of this error class (`'RETRIEVER_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'RETRIEVER_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'RETRIEVER_FAILED' as const;
  /** True for transport faults, timeouts and 5xx (or as `options.retryable` says). */
  override readonly retryable: boolean;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    message: string,
    /** HTTP status of the answer, when there was one. */
    readonly status?: number,
    options?: ErrorOptions & { retryable?: boolean },
  ) {
    super(message, options);
    this.name = 'RetrieverError';
    this.retryable = options?.retryable ?? (status === undefined || status >= 500);
  }
}

/**
 * A SQL database cannot be used at all: the file is missing or not SQLite, the native `better-sqlite3`
 * module is not built, or a query worker cannot start. (A model's bad query is an observation, never this.)
 */
export class SqlDatabaseError extends AgentRLError {
  /** Stable identifier of this error class (`'SQL_DATABASE'`), kept by minifiers: match on it. */
  static readonly code = 'SQL_DATABASE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SQL_DATABASE' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SqlDatabaseError';
  }
}

/**
 * An MCP server cannot be used: its process did not start or exited, the handshake or tool listing failed or timed
 * out, or a per-trajectory server died mid-trajectory (that trajectory ends as an `error`; the run goes on). A tool
 * call that fails, times out or is refused by the server is an observation for the model, never this.
 */
export class McpServerError extends AgentRLError {
  /** Stable identifier of this error class (`'MCP_SERVER'`), kept by minifiers: match on it. */
  static readonly code = 'MCP_SERVER' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'MCP_SERVER' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'McpServerError';
  }
}
