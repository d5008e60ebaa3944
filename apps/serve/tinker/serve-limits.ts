import { z } from 'zod';

/**
 * Bounds `agentrl serve` puts on every request and on all work it holds, each checked before the engine
 * allocates anything. Over a request limit the client gets `400 {error, category: "user"}` naming the limit;
 * over a load limit (queued futures, models in total) it gets `429` (per session) or `503` (server-wide) with
 * `Retry-After`. Sizes in tokens or bytes, durations in ms. `docs/security.md` (## agentrl serve) lists them.
 */
export interface ServeLimits {
  /** `num_samples` of one `asample`, and `n` of one `/v1` call. @default 64 */
  readonly maxNumSamples: number;
  /** `max_tokens` of one sampling request (also capped by the context). @default 4096 */
  readonly maxSampleTokens: number;
  /** Sequences one `/v1` call decodes: prompts × `n`. @default 256 */
  readonly maxSequencesPerRequest: number;
  /** Datums of one `forward` / `forward_backward`. @default 1024 */
  readonly maxDatumsPerRequest: number;
  /** Tokens (sum of `model_input` lengths) of one `forward` / `forward_backward`. @default 262_144 */
  readonly maxTokensPerRequest: number;
  /** Live models one session may hold. @default 8 */
  readonly maxModelsPerSession: number;
  /** Live models in all (each one is a full copy of the weights and Adam state). @default 32 */
  readonly maxModels: number;
  /** Submitted, unfinished futures of one session (429 beyond). @default 64 */
  readonly maxQueuedPerSession: number;
  /** Submitted, unfinished futures in all (503 beyond). @default 512 */
  readonly maxQueued: number;
  /** Finished results held for `retrieve_future`; past it the oldest expire (`410`) early. @default 4096 */
  readonly maxRetainedResults: number;
  /** Requests of one model held while they wait for a lower `seq_id`. @default 64 */
  readonly maxOutOfOrderRequests: number;
  /** Body bytes (JSON length) of those held requests, per model. @default 67_108_864 (64 MiB) */
  readonly maxOutOfOrderBytes: number;
  /** Longest wait for a missing lower `seq_id`; then the held request fails with a user error. @default 120_000 */
  readonly outOfOrderTimeoutMs: number;
  /** Named `save_weights_for_sampler` versions one model may hold in memory. @default 16 */
  readonly maxNamedSamplersPerModel: number;
  /** `save_weights` checkpoints one model may write to the state folder. @default 64 */
  readonly maxCheckpointsPerModel: number;
  /**
   * Unnamed `save_weights_for_sampler` versions kept per model (the newest ones); an older one is released once its
   * sampling calls in progress end, and its `sampling_session_id` then answers 404. @default 4
   */
  readonly samplerVersionsPerModel: number;
  /** `create_sampling_session` ids one session holds; past it the oldest is forgotten (404). @default 256 */
  readonly maxSamplingSessionsPerSession: number;
  /**
   * Bytes of checkpoints (`save_weights`, named `save_weights_for_sampler`) the models of one session may hold in the
   * state folder; a save that would pass it is refused (`400`, category `user`) before anything is written, and
   * deleting a checkpoint frees its bytes. @default 4_294_967_296 (4 GiB)
   */
  readonly maxStateBytesPerSession: number;
  /** Bytes of checkpoints this server may hold in the state folder in all (as above). @default 17_179_869_184 (16 GiB) */
  readonly maxStateBytes: number;
}

/** Default {@link ServeLimits}. */
export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  maxNumSamples: 64,
  maxSampleTokens: 4096,
  maxSequencesPerRequest: 256,
  maxDatumsPerRequest: 1024,
  maxTokensPerRequest: 262_144,
  maxModelsPerSession: 8,
  maxModels: 32,
  maxQueuedPerSession: 64,
  maxQueued: 512,
  maxRetainedResults: 4096,
  maxOutOfOrderRequests: 64,
  maxOutOfOrderBytes: 64 * 1024 * 1024,
  outOfOrderTimeoutMs: 120_000,
  maxNamedSamplersPerModel: 16,
  maxCheckpointsPerModel: 64,
  samplerVersionsPerModel: 4,
  maxSamplingSessionsPerSession: 256,
  maxStateBytesPerSession: 4 * 1024 ** 3,
  maxStateBytes: 16 * 1024 ** 3,
};

/** The limits given in bytes that may pass 2³¹ (the others are counts, sizes and times up to 2³¹). */
const LARGE_LIMITS: ReadonlySet<keyof ServeLimits> = new Set(['maxStateBytesPerSession', 'maxStateBytes']);

const count = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31);
const bytes = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** The largest value a limit accepts: 2³¹, or 2⁵³ − 1 for the state-folder byte limits. */
export function serveLimitMax(key: keyof ServeLimits): number {
  return LARGE_LIMITS.has(key) ? Number.MAX_SAFE_INTEGER : 2 ** 31;
}

/** Schema of a partial {@link ServeLimits} (every field optional, every value a positive integer up to {@link serveLimitMax}). */
export const serveLimitsSchema = z.strictObject(
  Object.fromEntries(Object.keys(DEFAULT_SERVE_LIMITS).map((k) => [k, (LARGE_LIMITS.has(k as keyof ServeLimits) ? bytes : count).optional()])) as Record<
    keyof ServeLimits,
    z.ZodOptional<typeof count>
  >,
);

/** Defaults filled in (validation is the caller's, with {@link serveLimitsSchema}). */
export function resolveServeLimits(partial: Partial<ServeLimits> | undefined): ServeLimits {
  return { ...DEFAULT_SERVE_LIMITS, ...partial };
}
