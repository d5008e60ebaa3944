import type { IncomingHttpHeaders } from 'node:http';
import type { Renderer, SamplingClient } from 'agentrl/internal';
import type { ServeCaller } from './caller.js';
import type { ServeLimits } from './serve-limits.js';
import type { TinkerServiceStats } from './service-options.js';

/**
 * What `agentrl serve` offers its plugins ({@link ServePlugin}) and the code that starts it ({@link ServeApp.service}):
 * the served model, its limits, samplers by reference, the caller of a request, counters. The Tinker API's own state
 * machine behind it (sessions, models, futures, checkpoints) is reached over HTTP, not from here.
 */
export interface ServeHost {
  /** The one base model name this server offers (the OpenAI-compatible `/v1` model id of its base weights). */
  readonly modelName: string;
  /** The served model's context window, tokens. */
  readonly contextTokens: number;
  /** The request and load limits in force. */
  readonly limits: ServeLimits;
  /** The caller (principal) of a request's headers, as the Tinker routes resolve it. */
  readonly callerOf: (headers: IncomingHttpHeaders) => ServeCaller;
  /** Live models (one per `create_model` not yet unloaded or expired). */
  readonly modelCount: number;
  /** Live counters (sessions, models, queued futures, held results, sampler versions, out-of-order requests, state bytes). */
  stats(): TinkerServiceStats;
  /** The served model's renderer (tokenizer + chat template of the embedded model). */
  renderer(): Promise<Renderer>;
  /**
   * A sampler by reference: a `sampling_session_id`, a `tinker://<model>/sampler_weights/<name>` path, or the base model
   * name (the checkpoint's weights, shared by everyone).
   * @throws ServeRequestError 404 when nothing by that reference exists for `caller` (another principal's, or released).
   */
  resolveSampler(ref: string, caller: ServeCaller): Promise<SamplingClient>;
  /** `tinker://…/sampler_weights/<name>` paths `caller` saved (each a model id of the OpenAI-compatible `/v1`). */
  samplerPaths(caller: ServeCaller): string[];
  /**
   * Drops sessions last seen before `cutoff` (ms since epoch) with their work (the server's own sweep does this every
   * `sessionTimeoutMs`; call it to expire sooner).
   */
  expireSessions(cutoff: number): Promise<void>;
}
