import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AgentRLError } from '../../errors/base.js';

/** OpenAI's error `type` for each status this surface answers. */
export type OpenAIErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'server_error';

/**
 * An error answered in OpenAI's shape `{ error: { message, type, param, code } }` with an HTTP status
 * (400 bad request, 401 no or wrong key, 404 unknown model or route, 413 body too large, 500 server fault).
 */
export class OpenAIApiError extends Error {
  /** The request parameter at fault (OpenAI's `param`), or null. */
  readonly param: string | null;
  /** OpenAI's machine-readable `code`, or null. */
  readonly errorCode: string | null;
  /** `status`: the HTTP status answered; `options.param` and `options.errorCode` default to null. */
  constructor(
    readonly status: number,
    message: string,
    options: { readonly param?: string | null; readonly errorCode?: string | null } & ErrorOptions = {},
  ) {
    super(message, options);
    this.name = 'OpenAIApiError';
    this.param = options.param ?? null;
    this.errorCode = options.errorCode ?? null;
  }
  /** The JSON body. */
  body(): { error: { message: string; type: OpenAIErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: errorType(this.status), param: this.param, code: this.errorCode } };
  }
}

function errorType(status: number): OpenAIErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/**
 * Maps any error thrown by a handler to an {@link OpenAIApiError}: itself; agentrl's input errors (`BACKEND_INPUT`,
 * `CHAT_TEMPLATE_FAILED`, `PROMPT_PREFIX_MISMATCH`) → 400; an agentrl error carrying a 4xx `status` (a sampler
 * resolver refusing a model) → that status (404 as `model_not_found`); Fastify's own 4xx (bad JSON, body too large) keep
 * their status; anything else → 500.
 */
export function toApiError(e: unknown): OpenAIApiError {
  if (e instanceof OpenAIApiError) return e;
  if (AgentRLError.isInstance(e)) {
    const field = (e as { field?: unknown }).field;
    if (e.code === 'BACKEND_INPUT') return new OpenAIApiError(400, e.message, { param: typeof field === 'string' ? field : null, errorCode: 'invalid_input' });
    if (e.code === 'CHAT_TEMPLATE_FAILED' || e.code === 'PROMPT_PREFIX_MISMATCH')
      return new OpenAIApiError(400, e.message, { param: 'messages', errorCode: e.code.toLowerCase() });
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // a sampler resolver refusing a model (e.g. agentrl serve's SERVE_REQUEST 404 for an unknown checkpoint)
      return status === 404
        ? new OpenAIApiError(404, e.message, { param: 'model', errorCode: 'model_not_found' })
        : new OpenAIApiError(status, e.message, { errorCode: e.code.toLowerCase() });
    }
    return new OpenAIApiError(500, e.message, { errorCode: e.code.toLowerCase() });
  }
  const fe = e as Partial<FastifyError>;
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new OpenAIApiError(fe.statusCode, fe.message ?? 'bad request', { errorCode: fe.code ?? null });
  }
  return new OpenAIApiError(500, e instanceof Error ? e.message : String(e));
}

/** Fastify error handler answering in OpenAI's shape (headers already sent, e.g. mid-stream, are left alone). */
export async function openAIErrorHandler(error: unknown, _req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const api = toApiError(error);
  if (reply.raw.headersSent) {
    reply.raw.end();
    return;
  }
  await reply.code(api.status).send(api.body());
}
