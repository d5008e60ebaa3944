import type { FastifyRequest } from 'fastify';
import type { SamplingClient } from '../../backend/types.js';
import type { Renderer } from '../../chat/types.js';
import type { TurnHooks } from './turn-hooks.js';

/** Options of the {@link openaiRoutes} plugin. */
export interface OpenAIRoutesOptions {
  /**
   * The sampling engine. An object serves `modelName` only (any other `model` gets 404 `model_not_found`). A function
   * is called once per request with the request's `model` and returns its sampler, so a server can offer several
   * models (the base model, saved sampler checkpoints) or the latest published weights; it refuses an unknown model by
   * throwing an error with `status: 404` (or any 4xx), which is answered in OpenAI's shape. It also gets the request
   * (e.g. to serve each API key only its own models).
   */
  readonly sampler: SamplingClient | ((model: string, request: FastifyRequest) => SamplingClient | Promise<SamplingClient>);
  /** Model ids listed by `GET /v1/models` after `modelName` (e.g. saved sampler checkpoints a `sampler` function accepts), for the request's caller. */
  readonly models?: (request: FastifyRequest) => readonly string[];
  /** Bounds of one request, checked before anything is sampled (400 past them). */
  readonly limits?: OpenAIRequestLimits;
  /** The model's renderer: tokenizer, chat template, stop tokens. */
  readonly renderer: Renderer;
  /** The served model's id (first in `GET /v1/models`). */
  readonly modelName: string;
  /** Context length in tokens; a chat request without `max_tokens` may generate up to what is left of it. */
  readonly maxContextTokens?: number;
  /** `max_tokens` of a chat request that gives none, when `maxContextTokens` is not set. @default 1024 */
  readonly defaultChatMaxTokens?: number;
  /**
   * A recording server's hooks for a request (see {@link TurnHooks}): chat completions are then admitted, rendered,
   * sampled and recorded by them, and `POST /v1/responses` is served too. May throw an `OpenAIApiError` (e.g. 401
   * for a key it does not know) to refuse the request. @default none
   */
  readonly turnHooks?: (request: FastifyRequest) => TurnHooks;
  /** Serve `POST /v1/completions` (raw token-id completions). @default true */
  readonly completions?: boolean;
}

/** Bounds of one `/v1` request (400 `invalid_value` naming the parameter past them). */
export interface OpenAIRequestLimits {
  /** `n`. @default 64 */
  readonly maxN?: number;
  /** `max_tokens` / `max_completion_tokens`. @default 4096 */
  readonly maxTokens?: number;
  /** Sequences decoded for one request: prompts × `n`. @default 256 */
  readonly maxSequences?: number;
}

/** Per-request context the handlers share. */
export interface RouteContext {
  readonly opts: OpenAIRoutesOptions;
  /** The sampler for a request's `model`. @throws OpenAIApiError 404 for a model not served here. */
  sampler(model: string, request: FastifyRequest): Promise<SamplingClient>;
  /** Unix seconds. */
  now(): number;
}
