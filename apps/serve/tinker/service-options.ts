import type { LocalBackendOptions } from 'agentrl/internal';
import type { AccessTokens } from './access-tokens.js';
import type { ServeLimits } from './serve-limits.js';

/** Options of {@link TinkerService}; see `createServeApp` for the documented public form. */
export interface TinkerServiceOptions {
  /** A `saveState` directory every created model starts from; without it, fresh weights of the default shape. */
  readonly checkpoint?: string;
  /** The one base model name this server offers. @default 'agentrl/local' */
  readonly modelName?: string;
  /** Where `save_weights` writes; @default a fresh temporary directory, removed by `close()`. */
  readonly stateDir?: string;
  /** Engine options passed to every `localBackend` (not `checkpoint`). */
  readonly engine?: Omit<LocalBackendOptions, 'checkpoint'>;
  /** How long `retrieve_future` holds a poll open before answering `try_again`, ms. @default 30_000 */
  readonly pollTimeoutMs?: number;
  /** Finished results are kept this long for (re)polls, ms. @default 600_000 */
  readonly futureTtlMs?: number;
  /** A session without a heartbeat this long is dropped with its models, ms. @default 300_000 */
  readonly sessionTimeoutMs?: number;
  /** Request and load limits ({@link ServeLimits}; defaults in `DEFAULT_SERVE_LIMITS`). */
  readonly limits?: Partial<ServeLimits>;
  /** The server's API keys: with several, each key is its own principal (see {@link ServeCaller}). @default [] */
  readonly apiKeys?: readonly string[];
  /** The access tokens exchanged for those keys (`POST /api/v1/auth/token`); each stands for its key's principal. @default none */
  readonly accessTokens?: AccessTokens;
  /**
   * Where each model's engine computes: `'worker'`, its own worker thread (the HTTP layer, heartbeats and other
   * models answer while it trains), or `'main'`, this thread (one long engine call then holds every request; for
   * benchmarks that read the engine's memory from `process.memoryUsage()`). @default 'worker'
   */
  readonly engineThread?: 'worker' | 'main';
}

/** A model as `TinkerService.resolveModel` answers it. */
export interface ServeModelRef {
  readonly modelId: string;
  /** The session that created it. */
  readonly sessionId: string;
}

/** A session as `TinkerService.resolveSession` answers it. */
export interface ServeSessionRef {
  readonly sessionId: string;
  readonly modelIds: readonly string[];
}

/** Counters of a `TinkerService` (for tests, logs and `bench:serve-memory`). */
export interface TinkerServiceStats {
  /** Live sessions. */
  readonly sessions: number;
  /** Live models. */
  readonly models: number;
  /** Submitted futures not finished yet. */
  readonly queued: number;
  /** Finished results held for `retrieve_future`. */
  readonly retainedResults: number;
  /** Frozen sampler weight versions held (unnamed + named), not counting the base model's. */
  readonly samplerVersions: number;
  /** Requests held for a missing lower `seq_id`, and their bytes, over all models. */
  readonly outOfOrder: number;
  /** Bytes of those held requests. */
  readonly outOfOrderBytes: number;
  /** Checkpoint bytes this server holds (or has reserved) in the state folder. */
  readonly stateBytes: number;
}
