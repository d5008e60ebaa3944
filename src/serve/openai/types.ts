import type { SamplingClient } from '../../backend/types.js';
import type { Renderer } from '../../chat/types.js';

/** Options of the {@link openaiRoutes} plugin. */
export interface OpenAIRoutesOptions {
  /**
   * The sampling engine. A function is called once per request, so a server can hand out the latest published
   * weights (e.g. the sampler of the last `saveWeightsForSampler`).
   */
  readonly sampler: SamplingClient | (() => SamplingClient | Promise<SamplingClient>);
  /** The model's renderer: tokenizer, chat template, stop tokens. */
  readonly renderer: Renderer;
  /** The one model id this server answers to (`GET /v1/models`; any other `model` gets 404 `model_not_found`). */
  readonly modelName: string;
  /** Context length in tokens; a chat request without `max_tokens` may generate up to what is left of it. */
  readonly maxContextTokens?: number;
  /** `max_tokens` of a chat request that gives none, when `maxContextTokens` is not set. @default 1024 */
  readonly defaultChatMaxTokens?: number;
}

/** Per-request context the handlers share. */
export interface RouteContext {
  readonly opts: OpenAIRoutesOptions;
  /** The sampler for this request. */
  sampler(): Promise<SamplingClient>;
  /** Unix seconds. */
  now(): number;
}
