import { z } from '../../util/zod.js';
import { FAMILY_IDS, type FamilyId } from '../../chat/families/types.js';
import type { Renderer } from '../../chat/types.js';
import { ConfigError } from '../../errors/config-error.js';

/**
 * Which wire protocol the inference server speaks.
 * - `'vllm'`: `POST {baseUrl}/completions` with a token-id prompt, `return_token_ids`, `logprobs` (vLLM, and any
 *   server with vLLM's token-id extensions, including `agentrl serve`'s `/v1`).
 * - `'sglang'`: SGLang's native `POST {baseUrl}/generate` with `input_ids` and `return_logprob`.
 */
export type SamplerFlavor = 'vllm' | 'sglang';

/** Options of {@link openaiCompatibleSampler}. Durations in ms. */
export interface OpenAICompatibleSamplerOptions {
  /**
   * Server root. vLLM: the OpenAI base URL including `/v1`, e.g. `http://gpu1:8000/v1`.
   * SGLang: the server root, e.g. `http://gpu1:30000` (`/generate` is appended).
   */
  readonly baseUrl: string;
  /** Served model name (`--served-model-name`, or the path vLLM was started with). Required for `'vllm'`. */
  readonly model?: string;
  /** Sent as `Authorization: Bearer KEY`. @default process.env.OPENAI_API_KEY when set */
  readonly apiKey?: string;
  /** @default 'vllm' */
  readonly flavor?: SamplerFlavor;
  /**
   * The model's Hugging Face folder (`tokenizer.json`, `tokenizer_config.json`, optional `generation_config.json`).
   * Its renderer supplies the stop tokens: the template's end-of-turn token plus every `eos_token_id` of
   * `generation_config.json`. Give this or `renderer`.
   */
  readonly tokenizer?: string;
  /**
   * The model family of `tokenizer` (prompt format and tool-call parser). @default detected from the folder
   * (docs/models.md)
   */
  readonly family?: FamilyId;
  /** A renderer already loaded (instead of `tokenizer`); its `stopTokens` are the stop tokens. */
  readonly renderer?: Renderer;
  /** Total time allowed for one HTTP request (the whole generation and its answer; a slow drip does not extend it). @default 600_000 */
  readonly timeoutMs?: number;
  /** Largest answer body accepted, bytes; a larger one is refused while streaming (`ResponseTooLargeError`). @default 268_435_456 (256 MiB) */
  readonly maxResponseBytes?: number;
  /** HTTP requests in flight at once (p-limit); a `numSamples: n` call is one request on `'vllm'`, n on `'sglang'`. @default 64 */
  readonly concurrency?: number;
  /** Retries of a retryable failure (no answer, 408/409/429/5xx), with backoff `min(500·2^k, 10_000)` ms or `retry-after`. @default 2 */
  readonly maxRetries?: number;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (tests, proxies). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** {@link OpenAICompatibleSamplerOptions} with defaults filled in. */
export interface ResolvedSamplerOptions {
  readonly baseUrl: string;
  readonly model: string | undefined;
  readonly apiKey: string | undefined;
  readonly flavor: SamplerFlavor;
  readonly tokenizer: string | undefined;
  readonly family: FamilyId | undefined;
  readonly renderer: Renderer | undefined;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly concurrency: number;
  readonly maxRetries: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
}

const isRenderer = (v: unknown): v is Renderer =>
  typeof v === 'object' && v !== null && Array.isArray((v as Renderer).stopTokens) && typeof (v as Renderer).decode === 'function';

const schema = z
  .strictObject({
    baseUrl: z.url({ protocol: /^https?$/ }),
    model: z.string().min(1).optional(),
    apiKey: z.string().min(1).optional(),
    flavor: z.enum(['vllm', 'sglang']).optional(),
    tokenizer: z.string().min(1).optional(),
    family: z.enum(FAMILY_IDS as [FamilyId, ...FamilyId[]]).optional(),
    renderer: z.custom<Renderer>(isRenderer, 'expected a Renderer (from loadRenderer)').optional(),
    timeoutMs: z.number().int().min(1).optional(),
    maxResponseBytes: z
      .number()
      .int()
      .min(1024)
      .max(2 ** 31)
      .optional(),
    concurrency: z.number().int().min(1).max(100_000).optional(),
    maxRetries: z.number().int().min(0).max(20).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    fetch: z.custom<typeof fetch>((v) => typeof v === 'function', 'expected a fetch function').optional(),
  })
  .superRefine((o, ctx) => {
    if ((o.tokenizer === undefined) === (o.renderer === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['tokenizer'], message: 'give exactly one of tokenizer (a model folder) or renderer' });
    }
    if ((o.flavor ?? 'vllm') === 'vllm' && o.model === undefined) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: "required for flavor 'vllm' (the served model name)" });
    }
  });

/**
 * Validates and fills in {@link OpenAICompatibleSamplerOptions}.
 * @throws ConfigError listing every problem with its dotted path.
 */
export function resolveSamplerOptions(options: OpenAICompatibleSamplerOptions): ResolvedSamplerOptions {
  const r = schema.safeParse(options);
  if (!r.success) {
    throw new ConfigError(
      'openaiCompatibleSampler options',
      r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    );
  }
  const o = r.data;
  const envKey = process.env.OPENAI_API_KEY;
  return {
    baseUrl: o.baseUrl.replace(/\/+$/, ''),
    model: o.model,
    apiKey: o.apiKey ?? (envKey ? envKey : undefined),
    flavor: o.flavor ?? 'vllm',
    tokenizer: o.tokenizer,
    family: o.family,
    renderer: o.renderer,
    timeoutMs: o.timeoutMs ?? 600_000,
    maxResponseBytes: o.maxResponseBytes ?? 268_435_456,
    concurrency: o.concurrency ?? 64,
    maxRetries: o.maxRetries ?? 2,
    headers: o.headers ?? {},
    fetch: o.fetch ?? globalThis.fetch,
  };
}
