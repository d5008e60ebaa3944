import { AgentRLError } from './base.js';

/** The sandbox service did not answer within `timeoutMs`. (Model code running long is `status: 'timeout'`.) */
export class SandboxTimeoutError extends AgentRLError {
  /** Stable identifier of this error class (`'SANDBOX_TIMEOUT'`), kept by minifiers: match on it. */
  static readonly code = 'SANDBOX_TIMEOUT' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SANDBOX_TIMEOUT' as const;
  /** Always true: retrying the same operation may succeed. */
  override readonly retryable = true;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The limit that passed, in milliseconds. */
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`sandbox did not answer within ${timeoutMs} ms`, options);
    this.name = 'SandboxTimeoutError';
  }
}

/** The sandbox backend is unreachable or broken (transport error, 5xx, crashed worker). */
export class SandboxUnavailableError extends AgentRLError {
  /** Stable identifier of this error class (`'SANDBOX_UNAVAILABLE'`), kept by minifiers: match on it. */
  static readonly code = 'SANDBOX_UNAVAILABLE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SANDBOX_UNAVAILABLE' as const;
  /** Always true: retrying the same operation may succeed. */
  override readonly retryable = true;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SandboxUnavailableError';
  }
}

/** The sandbox was used after `close()`. */
export class SandboxClosedError extends AgentRLError {
  /** Stable identifier of this error class (`'SANDBOX_CLOSED'`), kept by minifiers: match on it. */
  static readonly code = 'SANDBOX_CLOSED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SANDBOX_CLOSED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor() {
    super('sandbox is closed');
    this.name = 'SandboxClosedError';
  }
}

/** The sandbox (or, for a remote one, its server) offers no stateful sessions (`Sandbox.openSession`). */
export class SessionsNotSupportedError extends AgentRLError {
  /** Stable identifier of this error class (`'SANDBOX_SESSIONS_UNSUPPORTED'`), kept by minifiers: match on it. */
  static readonly code = 'SANDBOX_SESSIONS_UNSUPPORTED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SANDBOX_SESSIONS_UNSUPPORTED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** Name of the sandbox backend (`Sandbox.name`). */
    readonly backend: string,
    reason = 'this sandbox offers no stateful sessions',
  ) {
    super(`${backend}: ${reason}`);
    this.name = 'SessionsNotSupportedError';
  }
}

/**
 * The sandbox adapter registry cannot serve a request: no `adapters/` folder beside the package (a broken install),
 * an `adapters/<name>/adapter.{js,ts}` that does not export a valid `sandboxAdapter` descriptor or names it unlike its
 * folder (the adapter author's mistake), or no adapter of the asked name (`--backend`, `sandboxAdapter(name)`).
 */
export class SandboxAdapterError extends AgentRLError {
  /** Stable identifier of this error class (`'SANDBOX_ADAPTER_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'SANDBOX_ADAPTER_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SANDBOX_ADAPTER_INVALID' as const;
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SandboxAdapterError';
  }
}
