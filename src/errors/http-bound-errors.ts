import { AgentRLError } from './base.js';

/**
 * A server's answer was larger than the client's `maxResponseBytes`: refused while streaming (or at once from
 * `Content-Length`), before it was held in memory. Not retryable (the same request would get the same answer).
 */
export class ResponseTooLargeError extends AgentRLError {
  /** Stable identifier of this error class (`'RESPONSE_TOO_LARGE'`), kept by minifiers: match on it. */
  static readonly code = 'RESPONSE_TOO_LARGE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'RESPONSE_TOO_LARGE' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The URL the request went to. */
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
  /** Stable identifier of this error class (`'REDIRECT_REFUSED'`), kept by minifiers: match on it. */
  static readonly code = 'REDIRECT_REFUSED' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'REDIRECT_REFUSED' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The URL the request went to. */
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
