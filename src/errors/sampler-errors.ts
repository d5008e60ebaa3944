import { AgentRLError } from './base.js';
import { isRetriedStatus } from './http-status.js';

/**
 * An inference server's answer lacks something token-level RL needs (exact sampled token ids, their logprobs),
 * or does not fit the request (wrong number of choices, unequal lengths). `option` names the request option or
 * server setting that makes the server return it. The sampler never falls back to re-encoding text.
 */
export class SamplerResponseError extends AgentRLError {
  /** Stable identifier of this error class (`'SAMPLER_RESPONSE'`), kept by minifiers: match on it. */
  static readonly code = 'SAMPLER_RESPONSE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SAMPLER_RESPONSE' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** The response field that is missing or malformed, e.g. `'choices[0].token_ids'`. */
    readonly field: string,
    /** The request option or server setting that provides it, e.g. `'return_token_ids'`; `null` when none applies. */
    readonly option: string | null,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'SamplerResponseError';
  }
}

/**
 * An inference server answered with an HTTP error status. Retryable for 408, 409, 429 and 5xx
 * (`retryAfterMs` from `retry-after` / `retry-after-ms` when the server sent it).
 */
export class SamplerHttpError extends AgentRLError {
  /** Stable identifier of this error class (`'SAMPLER_HTTP'`), kept by minifiers: match on it. */
  static readonly code = 'SAMPLER_HTTP' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SAMPLER_HTTP' as const;
  /** True for HTTP 408, 409, 429 and 5xx. */
  override readonly retryable: boolean;
  /** Server-requested delay before a retry (`retry-after-ms` / `retry-after`, capped at 60 s), ms. */
  readonly retryAfterMs: number | undefined;
  /** Creates the error; each `readonly` parameter becomes the property of the same name; `options.retryAfterMs` becomes `retryAfterMs`. */
  constructor(
    /** HTTP status code. */
    readonly status: number,
    /** The server's error message (OpenAI shape `error.message`, or the raw body, cut to 2,000 characters). */
    readonly serverMessage: string,
    /** The URL the request went to. */
    readonly url: string,
    options: { readonly retryAfterMs?: number | undefined } & ErrorOptions = {},
  ) {
    super(`${url} answered HTTP ${status}: ${serverMessage}`, options);
    this.name = 'SamplerHttpError';
    this.retryable = isRetriedStatus('openai', status);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** No answer from an inference server: connection refused or reset, DNS failure, or `timeoutMs` passed. Retryable. */
export class SamplerUnavailableError extends AgentRLError {
  /** Stable identifier of this error class (`'SAMPLER_UNAVAILABLE'`), kept by minifiers: match on it. */
  static readonly code = 'SAMPLER_UNAVAILABLE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'SAMPLER_UNAVAILABLE' as const;
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
    this.name = 'SamplerUnavailableError';
  }
}
