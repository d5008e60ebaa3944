import pLimit from 'p-limit';
import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import type { Renderer } from '../../chat/types.js';
import { loadRenderer } from '../../chat/load-renderer.js';
import { BackendInputError } from '../../errors/backend-errors.js';
import { SamplerResponseError } from '../../errors/sampler-errors.js';
import type { SamplingClient } from '../types.js';
import { postJson, type PostJsonOptions } from './http.js';
import { resolveSamplerOptions, type OpenAICompatibleSamplerOptions, type ResolvedSamplerOptions, type SamplerFlavor } from './options.js';
import { parseSglangGenerate, sglangGenerateRequest } from './sglang.js';
import { parseVllmCompletion, vllmCompletionRequest } from './vllm.js';

/** A {@link SamplingClient} over an inference server, made by {@link openaiCompatibleSampler}. */
export interface OpenAICompatibleSampler extends SamplingClient {
  /** Which server dialect is spoken (`vllm` or `sglang`). */
  readonly flavor: SamplerFlavor;
  /** Server root the requests go to, as given in the options (e.g. `http://127.0.0.1:8000/v1`). */
  readonly baseUrl: string;
  /** The renderer whose stop tokens end every sequence (loaded from `tokenizer` on first use, then cached). */
  renderer(): Promise<Renderer>;
}

function checkParams(promptTokens: readonly number[], params: SamplingParams): number {
  if (promptTokens.length === 0) throw new BackendInputError('promptTokens', 'empty prompt');
  const n = params.numSamples ?? 1;
  if (!Number.isInteger(n) || n < 0) throw new BackendInputError('numSamples', `must be an integer ≥ 0, got ${n}`);
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 0) throw new BackendInputError('maxTokens', `must be an integer ≥ 0, got ${params.maxTokens}`);
  return n;
}

/** Union of the call's stop ids and the renderer's, in first-seen order. */
function stopIds(params: SamplingParams, renderer: Renderer): number[] {
  return [...new Set([...(params.stop ?? []), ...renderer.stopTokens])];
}

/**
 * A prompt token's logprob as the server reported it: a finite number ≤ 0 (natural log of a probability).
 * @throws SamplerResponseError naming `field` otherwise (`null`, `"NaN"`, a positive value).
 */
function promptLogprob(lp: unknown, field: string, option: string, token: number): number {
  if (typeof lp !== 'number' || !Number.isFinite(lp) || lp > 0) {
    throw new SamplerResponseError(field, option, `expected a finite logprob ≤ 0 for token ${token}, got ${JSON.stringify(lp)?.slice(0, 80)}`);
  }
  return lp;
}

/**
 * Logprob of each prompt token from vLLM's `prompt_logprobs: 0` (keys are `str(token_id)`); entry 0 is `null`.
 * @throws SamplerResponseError naming the position when an entry lacks the request's token id or its logprob is not
 *   a finite number ≤ 0.
 */
function vllmPromptLogprobs(body: unknown, tokens: readonly number[]): (number | null)[] {
  const pl = (body as { choices?: { prompt_logprobs?: unknown }[] } | null)?.choices?.[0]?.prompt_logprobs;
  if (!Array.isArray(pl) || pl.length !== tokens.length) {
    throw new SamplerResponseError(
      'choices[0].prompt_logprobs',
      'prompt_logprobs',
      `expected ${tokens.length} entries for prompt_logprobs: 0, got ${Array.isArray(pl) ? pl.length : 'none'}`,
    );
  }
  return tokens.map((t, i) => {
    if (i === 0) return null;
    const field = `choices[0].prompt_logprobs[${i}]`;
    const entry = (pl[i] as Record<string, { logprob?: unknown }> | null)?.[String(t)];
    if (entry === undefined) throw new SamplerResponseError(field, 'prompt_logprobs', `no logprob for token ${t} (the entry names other token ids)`);
    return promptLogprob(entry?.logprob, field, 'prompt_logprobs', t);
  });
}

/**
 * Logprob of each prompt token from SGLang's `meta_info.input_token_logprobs` (`[logprob|null, id, text]`); entry 0 is
 * `null`. Every row must name the request's token id at its position (a shifted or missing id means the rows describe
 * other tokens) and carry a finite logprob ≤ 0 (row 0 may be `null`).
 * @throws SamplerResponseError naming the position otherwise.
 */
function sglangPromptLogprobs(body: unknown, tokens: readonly number[]): (number | null)[] {
  const rows = (body as { meta_info?: { input_token_logprobs?: unknown } } | null)?.meta_info?.input_token_logprobs;
  if (!Array.isArray(rows) || rows.length !== tokens.length) {
    throw new SamplerResponseError('meta_info.input_token_logprobs', 'logprob_start_len', `expected ${tokens.length} entries for logprob_start_len: 0`);
  }
  return tokens.map((t, i) => {
    const field = `meta_info.input_token_logprobs[${i}]`;
    const row = rows[i] as unknown;
    if (!Array.isArray(row) || row[1] !== t) {
      throw new SamplerResponseError(
        field,
        'logprob_start_len',
        `expected [logprob, ${t}, …] for the request's token ${t}, got ${JSON.stringify(row)?.slice(0, 120)}`,
      );
    }
    return i === 0 ? null : promptLogprob(row[0], field, 'logprob_start_len', t);
  });
}

/**
 * A `SamplingClient` over an inference server that samples from token ids and returns the exact sampled token ids
 * with their logprobs: vLLM's `/v1/completions` (`flavor: 'vllm'`, also `agentrl serve`'s `/v1`) or SGLang's `/generate`
 * (`flavor: 'sglang'`). Use it anywhere a `SamplingClient` goes — `evaluate()`, the rollout engine.
 *
 * - Prompts go as token ids and completions come back as token ids: text is never decoded and re-encoded. A server
 *   that returns no ids or no logprobs gets a {@link SamplerResponseError} naming the option it lacks.
 * - Stop tokens: the call's `stop` plus the renderer's stop tokens (the template's end-of-turn token and every
 *   `eos_token_id` of `generation_config.json`). The stop token is included in the returned tokens, as vLLM returns it.
 * - Logprobs are what the server reports for the sampled token. `SampledSequence.logprobs` promises the sampled
 *   distribution (temperature applied): start vLLM with `--logprobs-mode processed_logprobs` (its default,
 *   `raw_logprobs`, is the distribution before temperature); SGLang applies temperature unless
 *   `SGLANG_RETURN_ORIGINAL_LOGPROB` is set. See docs/backends.md.
 * - `seed` is sent as is (vLLM: one request with `n` sequences; SGLang: `n` requests seeded `seed + i`).
 * - HTTP requests are limited to `concurrency` at once and retried on 408/409/429/5xx and transport faults. Each has
 *   a total deadline (`timeoutMs`), its answer is refused past `maxResponseBytes`, and redirects are refused.
 *
 * @example
 * const sampler = openaiCompatibleSampler({ baseUrl: 'http://gpu1:8000/v1', model: 'Qwen/Qwen3-8B', tokenizer: 'models/Qwen3-8B' });
 * const result = await evaluate({ sampler, renderer: await sampler.renderer(), env, reward, examples });
 * @throws ConfigError for invalid options. Each call may throw BackendInputError (bad arguments),
 *   SamplerHttpError, SamplerUnavailableError, SamplerResponseError, ResponseTooLargeError or RedirectRefusedError.
 */
export function openaiCompatibleSampler(options: OpenAICompatibleSamplerOptions): OpenAICompatibleSampler {
  const o: ResolvedSamplerOptions = resolveSamplerOptions(options);
  const limit = pLimit(o.concurrency);
  let rendererP: Promise<Renderer> | undefined = o.renderer ? Promise.resolve(o.renderer) : undefined;
  const renderer = (): Promise<Renderer> => (rendererP ??= loadRenderer({ dir: o.tokenizer!, ...(o.family ? { family: o.family } : {}) }));
  const http: PostJsonOptions = {
    fetch: o.fetch,
    headers: o.headers,
    apiKey: o.apiKey,
    timeoutMs: o.timeoutMs,
    maxResponseBytes: o.maxResponseBytes,
    maxRetries: o.maxRetries,
  };
  const post = (path: string, body: unknown, signal?: AbortSignal): Promise<unknown> =>
    limit(() => {
      if (signal?.aborted) throw signal.reason;
      return postJson(`${o.baseUrl}${path}`, body, signal ? { ...http, signal } : http);
    });

  async function sample(promptTokens: readonly number[], params: SamplingParams): Promise<SampledSequence[]> {
    const n = checkParams(promptTokens, params);
    if (n === 0) return [];
    const stop = stopIds(params, await renderer());
    // `signal` (a cancellation the rollout engine may pass with the params) aborts the HTTP request.
    const signal = (params as SamplingParams & { readonly signal?: AbortSignal }).signal;
    if (o.flavor === 'vllm') {
      return parseVllmCompletion(await post('/completions', vllmCompletionRequest(o.model!, promptTokens, params, stop), signal), n);
    }
    return Promise.all(
      Array.from({ length: n }, async (_, i) =>
        parseSglangGenerate(
          await post('/generate', sglangGenerateRequest(promptTokens, params, stop, params.seed === undefined ? undefined : params.seed + i), signal),
        ),
      ),
    );
  }

  async function computeLogprobs(tokens: readonly number[]): Promise<(number | null)[]> {
    if (tokens.length === 0) return [];
    if (o.flavor === 'vllm') {
      const body = await post('/completions', { model: o.model, prompt: [...tokens], max_tokens: 1, temperature: 1, prompt_logprobs: 0, stream: false });
      return vllmPromptLogprobs(body, tokens);
    }
    const body = await post('/generate', {
      input_ids: [...tokens],
      sampling_params: { max_new_tokens: 1, temperature: 1 },
      return_logprob: true,
      logprob_start_len: 0,
      stream: false,
    });
    return sglangPromptLogprobs(body, tokens);
  }

  return { flavor: o.flavor, baseUrl: o.baseUrl, renderer, sample, computeLogprobs };
}
