import { AgentRLError } from './base.js';
import { isRetriedStatus } from './http-status.js';

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
    this.retryable = options?.retryable ?? (status === undefined || isRetriedStatus('retriever', status));
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

/**
 * A tool call did not resolve within its deadline (`toolEnvironment`'s `callTimeoutMs`, a tool's own `timeoutMs`):
 * the call's signal is aborted and the trajectory ends as an `error` with stage `timeout` (the run goes on).
 */
export class ToolTimeoutError extends AgentRLError {
  /** Stable identifier of this error class (`'TOOL_TIMEOUT'`), kept by minifiers: match on it. */
  static readonly code = 'TOOL_TIMEOUT' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'TOOL_TIMEOUT' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The tool that did not answer. */
    readonly tool: string,
    /** Its deadline in ms. */
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`tool '${tool}' did not resolve within ${timeoutMs} ms (callTimeoutMs)`, options);
    this.name = 'ToolTimeoutError';
  }
}

/**
 * An environment's `step` resolved to something that is not a `StepOutcome` (`{ done: true }` or
 * `{ done: false, observation: Message[] }`), e.g. an observation that is a number or a string. That trajectory ends
 * as an `error` (stage `env_step`) with this message naming what was returned; the run goes on.
 */
export class EnvironmentOutputError extends AgentRLError {
  /** Stable identifier of this error class (`'ENV_OUTPUT'`), kept by minifiers: match on it. */
  static readonly code = 'ENV_OUTPUT' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'ENV_OUTPUT' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The environment's name. */
    readonly env: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EnvironmentOutputError';
  }
}

/**
 * An agent program run by `subprocessAgent` could not start (`program` not found or not executable) or ended without
 * success (a non-zero exit code or a signal; the message carries the tail of its stderr). That trajectory ends as an
 * `error`; the run goes on.
 */
export class AgentProgramError extends AgentRLError {
  /** Stable identifier of this error class (`'AGENT_PROGRAM_FAILED'`), kept by minifiers: match on it. */
  static readonly code = 'AGENT_PROGRAM_FAILED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'AGENT_PROGRAM_FAILED' as const;
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AgentProgramError';
  }
}
