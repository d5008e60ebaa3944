import { AgentRLError } from './base.js';

/** The sandbox service did not answer within `timeoutMs`. (Model code running long is `status: 'timeout'`.) */
export class SandboxTimeoutError extends AgentRLError {
  static readonly code = 'SANDBOX_TIMEOUT' as const;
  readonly code = 'SANDBOX_TIMEOUT' as const;
  override readonly retryable = true;
  constructor(
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`sandbox did not answer within ${timeoutMs} ms`, options);
    this.name = 'SandboxTimeoutError';
  }
}

/** The sandbox backend is unreachable or broken (transport error, 5xx, crashed worker). */
export class SandboxUnavailableError extends AgentRLError {
  static readonly code = 'SANDBOX_UNAVAILABLE' as const;
  readonly code = 'SANDBOX_UNAVAILABLE' as const;
  override readonly retryable = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SandboxUnavailableError';
  }
}

/** The sandbox was used after `close()`. */
export class SandboxClosedError extends AgentRLError {
  static readonly code = 'SANDBOX_CLOSED' as const;
  readonly code = 'SANDBOX_CLOSED' as const;
  constructor() {
    super('sandbox is closed');
    this.name = 'SandboxClosedError';
  }
}

/** The sandbox (or, for a remote one, its server) offers no stateful sessions (`Sandbox.openSession`). */
export class SessionsNotSupportedError extends AgentRLError {
  static readonly code = 'SANDBOX_SESSIONS_UNSUPPORTED' as const;
  readonly code = 'SANDBOX_SESSIONS_UNSUPPORTED' as const;
  constructor(
    readonly backend: string,
    reason = 'this sandbox offers no stateful sessions',
  ) {
    super(`${backend}: ${reason}`);
    this.name = 'SessionsNotSupportedError';
  }
}
