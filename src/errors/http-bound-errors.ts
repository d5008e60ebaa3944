import { AgentRLError } from './base.js';

/**
 * A server's answer was larger than the client's `maxResponseBytes`: refused while streaming (or at once from
 * `Content-Length`), before it was held in memory. Not retryable (the same request would get the same answer).
 */
export class ResponseTooLargeError extends AgentRLError {
  static readonly code = 'RESPONSE_TOO_LARGE' as const;
  readonly code = 'RESPONSE_TOO_LARGE' as const;
  constructor(
    readonly url: string,
    /** The limit, bytes. */
    readonly maxBytes: number,
    /** Bytes announced (`Content-Length`) or read when the limit was passed. */
    readonly seenBytes: number,
  ) {
    super(`${url}: answer larger than the limit of ${maxBytes} bytes (${seenBytes} bytes seen); raise maxResponseBytes if the server is trusted`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * A server answered with a redirect that the client does not follow: every agentrl client refuses redirects
 * (a request body, API key or custom header is never re-sent to another URL). Not retryable.
 */
export class RedirectRefusedError extends AgentRLError {
  static readonly code = 'REDIRECT_REFUSED' as const;
  readonly code = 'REDIRECT_REFUSED' as const;
  constructor(
    readonly url: string,
    /** HTTP status, 3xx. */
    readonly status: number,
    /** The `Location` the server named, if any (not contacted). */
    readonly location: string | undefined,
  ) {
    super(`${url} answered HTTP ${status} redirecting to ${location ?? '(no location)'}; redirects are refused (point the client at the final URL)`);
    this.name = 'RedirectRefusedError';
  }
}
