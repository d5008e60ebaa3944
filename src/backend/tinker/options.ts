import { z } from '../../util/zod.js';
import type { Dispatcher } from 'undici';
import { ConfigError } from '../../errors/index.js';
import type { Renderer } from '../../chat/types.js';
import type { RendererSettings } from '../../chat/options.js';
import type { WarningEvent } from '../../types/warning.js';
import { ENGINE_NAMES, type EngineOption } from './engines/profiles.js';

/** The hosted Tinker service, used when neither `baseUrl` nor `TINKER_BASE_URL` is set. */
export const TINKER_HOSTED_URL = 'https://tinker.thinkingmachines.dev/services/tinker-prod';

/** LoRA settings sent with `create_model` (Tinker's `LoraConfig`). */
export interface TinkerLoraOptions {
  /** Adapter rank. @default 32 */
  readonly rank?: number;
  /** Train the MLP projections. @default true */
  readonly trainMlp?: boolean;
  /** Train the attention projections. @default true */
  readonly trainAttn?: boolean;
  /** Train the unembedding (LM head). @default true */
  readonly trainUnembed?: boolean;
  /** Seed of the adapter's initialisation (server default when absent). */
  readonly seed?: number;
}

/** Timeouts, all in milliseconds. */
export interface TinkerTimeouts {
  /** TCP/TLS connect timeout of the built-in dispatcher (ignored when `dispatcher` is given). @default 5_000 */
  readonly connectMs?: number;
  /** Total deadline for the answer of one submit or synchronous call (headers and whole body; a drip does not extend it). @default 60_000 */
  readonly requestMs?: number;
  /**
   * Total deadline of one `retrieve_future` long poll (headers and body); on expiry the client polls again.
   * @default 45_000, or the engine's poll hold + 15 000 when longer (SkyRL holds 300 s: 315 000; TuFT 120 s: 135 000)
   */
  readonly pollMs?: number;
  /** Period of the session heartbeat (its own deadline is the same). @default 10_000 */
  readonly heartbeatMs?: number;
  /**
   * Longest time the polls of one future may go without any HTTP answer (each poll timing out on an open
   * connection) before `BackendUnavailableError`: a hung server. Servers that hold polls longer than `pollMs` (SkyRL
   * holds 300 s) are silent for a whole operation, so keep this above the longest step. @default 600_000
   */
  readonly silenceMs?: number;
  /**
   * Longest total wait for one future's result, from its first poll (`try_again` answers, held polls, `410`
   * resubmits and retries all count), before `BackendUnavailableError`: a server that answers `try_again` forever
   * is not waited on forever. @default 1_200_000 (20 min)
   */
  readonly futureMs?: number;
}

/** How transport faults are retried. */
export interface TinkerRetryOptions {
  /**
   * Longest time one call keeps retrying connection errors, timeouts, 5xx and 429 without any usable answer,
   * before it fails with `BackendUnavailableError`. @default 300_000 (the Python SDK's 5 minutes)
   */
  readonly budgetMs?: number;
  /** First backoff delay; delay n is `min(initialDelayMs · 2^n, maxDelayMs)`. @default 1_000 */
  readonly initialDelayMs?: number;
  /** Longest backoff delay. @default 30_000 */
  readonly maxDelayMs?: number;
  /**
   * Pause before polling again after a `try_again` answer. The Python SDK polls at once (its servers hold the poll);
   * a short pause keeps a server that answers at once from being flooded. @default 100
   */
  readonly tryAgainDelayMs?: number;
  /** Bare HTTP 400 answers to a poll tolerated before failing (a proxy may inject them). @default 3 */
  readonly max400?: number;
  /** Times an expired future (HTTP 410) is resubmitted before failing. @default 3 */
  readonly max410?: number;
}

/** Where the tokenizer and chat template come from. */
export type TinkerRendererSource =
  | Renderer
  /** A Hugging Face model folder with `tokenizer.json`, `tokenizer_config.json` and (optional) `generation_config.json`. */
  | string
  | ({ readonly dir: string } & RendererSettings);

/** Options of {@link tinkerBackend}. */
export interface TinkerBackendOptions {
  /**
   * Which engine serves the API, so that every option is run exactly, adapted, or refused before the first rollout
   * (see docs/engines.md and `ENGINE_PROFILES`): `'tinker'` (hosted), `'skyrl-jax'`, `'skyrl-fsdp'`,
   * `'skyrl-megatron'`, `'tuft'`, `'open-rl'`, `'agentrl'` (`agentrl serve`), or `'auto'`: read from the server's
   * `/client/config` (agentrl serve names itself; TuFT and open-rl answer with their own flag sets; a SkyRL server is
   * recognised but must be named, since its backends differ), otherwise hosted Tinker is assumed with a `warning`.
   * It also sets the default per-poll deadline above the engine's long-poll hold (`timeouts.pollMs`). @default 'auto'
   */
  readonly engine?: EngineOption;
  /** Server root, without `/api/v1`. @default `TINKER_BASE_URL`, else {@link TINKER_HOSTED_URL} */
  readonly baseUrl?: string;
  /** Sent as `X-API-Key`. Required for the hosted service (`tml-…`); open servers accept any. @default `TINKER_API_KEY` */
  readonly apiKey?: string;
  /** Base model to train, e.g. `'Qwen/Qwen3-8B'` (one of the server's `get_server_capabilities` models). */
  readonly baseModel: string;
  /** LoRA adapter settings. */
  readonly lora?: TinkerLoraOptions;
  /** The model's tokenizer and chat template (there is no tokenizer endpoint in the protocol). */
  readonly renderer: TinkerRendererSource;
  /** Context length in tokens (prompt + completion), for the trainer's budgets. @default 32_768 */
  readonly maxContextTokens?: number;
  /**
   * Datums per `forward_backward` request; larger batches are split, each chunk its own `seq_id`. The server's
   * `/client/config` limits (`fwdbwd_max_chunk_len`, `fwdbwd_max_chunk_bytes_count`) lower it once the session
   * exists (`connect()` or any earlier call). @default 1024
   */
  readonly maxChunkDatums?: number;
  /**
   * Wire format of `forward_backward` bodies and of forward_backward/sample results.
   * - `'auto'`: protobuf bodies (`application/x-protobuf`, as Tinker SDK 0.25) and protobuf-first `Accept` for
   *   results; a server that refuses a protobuf body (415, or 422 from a JSON-only FastAPI server) gets JSON from then
   *   on, with the same `seq_id` — no option needed for either kind of server.
   * - `'protobuf'`: the same, also when the server's `/client/config` says `proto_write_fwdbwd: false`.
   * - `'json'`: JSON bodies and JSON results only (servers before SDK 0.18.1).
   * @default 'auto'
   */
  readonly wireFormat?: 'auto' | 'json' | 'protobuf';
  /**
   * Headers sent with every request, e.g. an access proxy's `CF-Access-Client-Id` / `CF-Access-Client-Secret`. They
   * cannot replace the protocol's own headers (`x-api-key`, `content-type`, `accept`, `x-idempotency-key`).
   */
  readonly extraHeaders?: Readonly<Record<string, string>>;
  /**
   * Receives the server's own messages (`create_session`'s `info_message` / `warning_message` / `error_message`,
   * e.g. a deprecation notice) as `warning` events with code `server_notice`.
   * @default `process.emitWarning` (printed on stderr)
   */
  readonly onWarning?: (e: WarningEvent) => void;
  /**
   * Allow sampling with `temperature ≠ 1`, `topP < 1` or `topK > 0`. The protocol's losses compute learner logprobs at
   * temperature 1 with no truncation, so such samples make the importance ratio off-policy; only enable this for
   * samplers that are not used for training (evaluation). @default false
   */
  readonly allowTemperedSampling?: boolean;
  /** Per-request timeouts (connect, answer, polling). */
  readonly timeouts?: TinkerTimeouts;
  /** How long and how often failed calls are retried. */
  readonly retry?: TinkerRetryOptions;
  /** Tags and metadata attached to the session (`create_session`). */
  readonly sessionTags?: readonly string[];
  /** undici dispatcher for every request (tests, proxies, connection limits). @default an own `Agent`, closed by `close()` */
  readonly dispatcher?: Dispatcher;
  /**
   * Largest answer body accepted, bytes; a larger one is refused while it streams (`ResponseTooLargeError`), never
   * buffered whole. @default 268_435_456 (256 MiB)
   */
  readonly maxResponseBytes?: number;
}

/** Options with every default filled in. */
export interface ResolvedTinkerOptions {
  readonly engine: EngineOption;
  /** Whether `timeouts.pollMs` was given (otherwise the engine's profile sets it). */
  readonly pollMsGiven: boolean;
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly baseModel: string;
  readonly lora: { rank: number; trainMlp: boolean; trainAttn: boolean; trainUnembed: boolean; seed?: number };
  readonly renderer: TinkerRendererSource;
  readonly maxContextTokens: number;
  readonly maxChunkDatums: number;
  readonly wireFormat: 'auto' | 'json' | 'protobuf';
  readonly extraHeaders: Readonly<Record<string, string>>;
  readonly onWarning: (e: WarningEvent) => void;
  readonly allowTemperedSampling: boolean;
  readonly timeouts: Required<TinkerTimeouts>;
  readonly retry: Required<TinkerRetryOptions>;
  readonly sessionTags: readonly string[];
  readonly dispatcher: Dispatcher | undefined;
  readonly maxResponseBytes: number;
}

const ms = (min: number) => z.number().int().min(min);

/** Headers the protocol sets itself; `extraHeaders` may not override them. */
const RESERVED_HEADERS = new Set([
  'x-api-key',
  'authorization',
  'content-type',
  'content-encoding',
  'accept',
  'x-idempotency-key',
  'user-agent',
  'host',
  'content-length',
]);

const schema = z.strictObject({
  engine: z.enum([...ENGINE_NAMES, 'auto']).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  baseModel: z.string().min(1),
  lora: z
    .strictObject({
      rank: z.number().int().min(0).optional(),
      trainMlp: z.boolean().optional(),
      trainAttn: z.boolean().optional(),
      trainUnembed: z.boolean().optional(),
      seed: z.number().int().min(0).optional(),
    })
    .optional(),
  renderer: z.union([
    z.string().min(1),
    z.custom<Renderer>((v) => typeof v === 'object' && v !== null && typeof (v as Renderer).renderPrompt === 'function', {
      error: 'expected a Renderer, a model folder path or { dir, ...settings }',
    }),
    z.looseObject({ dir: z.string().min(1) }),
  ]),
  maxContextTokens: z.number().int().min(8).optional(),
  maxChunkDatums: z.number().int().min(1).max(1024).optional(),
  wireFormat: z.enum(['auto', 'json', 'protobuf']).optional(),
  extraHeaders: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'not an HTTP header name'), z.string().regex(/^[^\r\n]*$/, 'must not contain line breaks'))
    .refine((h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())), {
      error: 'must not set x-api-key, authorization, content-type, content-encoding, accept, x-idempotency-key, user-agent, host or content-length',
    })
    .optional(),
  onWarning: z.custom<(e: WarningEvent) => void>((f) => typeof f === 'function', { error: 'expected a function' }).optional(),
  allowTemperedSampling: z.boolean().optional(),
  timeouts: z
    .strictObject({
      connectMs: ms(1).optional(),
      requestMs: ms(1).optional(),
      pollMs: ms(1).optional(),
      heartbeatMs: ms(1).optional(),
      silenceMs: ms(1).optional(),
      futureMs: ms(1).optional(),
    })
    .optional(),
  retry: z
    .strictObject({
      budgetMs: ms(0).optional(),
      initialDelayMs: ms(0).optional(),
      maxDelayMs: ms(0).optional(),
      tryAgainDelayMs: ms(0).optional(),
      max400: ms(0).optional(),
      max410: ms(0).optional(),
    })
    .optional(),
  sessionTags: z.array(z.string()).optional(),
  dispatcher: z
    .custom<Dispatcher>((v) => typeof v === 'object' && v !== null && typeof (v as Dispatcher).dispatch === 'function', {
      error: 'expected an undici Dispatcher',
    })
    .optional(),
  maxResponseBytes: z
    .number()
    .int()
    .min(1024)
    .max(2 ** 31)
    .optional(),
});

/**
 * Validates {@link TinkerBackendOptions} and fills in defaults (environment variables `TINKER_BASE_URL` and
 * `TINKER_API_KEY` from `env`).
 * @throws ConfigError listing every problem with its dotted path, e.g. `lora.rank: …`.
 */
export function resolveTinkerOptions(options: TinkerBackendOptions, env: NodeJS.ProcessEnv = process.env): ResolvedTinkerOptions {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    throw new ConfigError(
      'tinkerBackend options',
      parsed.error.issues.map((i) => ({
        path: i.path.map(String).join('.'),
        message: i.code === 'unrecognized_keys' ? `unknown key ${i.keys.join(', ')}` : i.message,
      })),
    );
  }
  const o = parsed.data;
  const baseUrl = (o.baseUrl ?? (env['TINKER_BASE_URL'] || undefined) ?? TINKER_HOSTED_URL).replace(/\/+$/, '');
  const apiKey = o.apiKey ?? (env['TINKER_API_KEY'] || undefined);
  if (apiKey === undefined && baseUrl === TINKER_HOSTED_URL) {
    throw new ConfigError('tinkerBackend options', [{ path: 'apiKey', message: `required for the hosted service ${TINKER_HOSTED_URL} (set TINKER_API_KEY)` }]);
  }
  return {
    engine: o.engine ?? 'auto',
    pollMsGiven: o.timeouts?.pollMs !== undefined,
    baseUrl,
    apiKey,
    baseModel: o.baseModel,
    lora: {
      rank: o.lora?.rank ?? 32,
      trainMlp: o.lora?.trainMlp ?? true,
      trainAttn: o.lora?.trainAttn ?? true,
      trainUnembed: o.lora?.trainUnembed ?? true,
      ...(o.lora?.seed !== undefined ? { seed: o.lora.seed } : {}),
    },
    renderer: options.renderer,
    maxContextTokens: o.maxContextTokens ?? 32_768,
    maxChunkDatums: o.maxChunkDatums ?? 1024,
    wireFormat: o.wireFormat ?? 'auto',
    extraHeaders: { ...(o.extraHeaders ?? {}) },
    onWarning: options.onWarning ?? ((e) => process.emitWarning(e.message, { type: 'TinkerServerNotice', code: e.code })),
    allowTemperedSampling: o.allowTemperedSampling ?? false,
    timeouts: {
      connectMs: o.timeouts?.connectMs ?? 5_000,
      requestMs: o.timeouts?.requestMs ?? 60_000,
      pollMs: o.timeouts?.pollMs ?? 45_000,
      heartbeatMs: o.timeouts?.heartbeatMs ?? 10_000,
      silenceMs: o.timeouts?.silenceMs ?? 600_000,
      futureMs: o.timeouts?.futureMs ?? 1_200_000,
    },
    retry: {
      budgetMs: o.retry?.budgetMs ?? 300_000,
      initialDelayMs: o.retry?.initialDelayMs ?? 1_000,
      maxDelayMs: o.retry?.maxDelayMs ?? 30_000,
      tryAgainDelayMs: o.retry?.tryAgainDelayMs ?? 100,
      max400: o.retry?.max400 ?? 3,
      max410: o.retry?.max410 ?? 3,
    },
    sessionTags: o.sessionTags ?? [],
    dispatcher: options.dispatcher,
    maxResponseBytes: o.maxResponseBytes ?? 268_435_456,
  };
}
