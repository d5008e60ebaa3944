import type { SampledSequence, SamplingParams } from '../../types/sampling.js';
import { SamplerResponseError } from '../../errors/sampler-errors.js';
import { mapFinishReason } from './vllm.js';

/**
 * The body of SGLang's native `POST /generate` for ONE sequence (the sampler sends `n` of them, seeds `seed + i`):
 * `input_ids`, `sampling_params` (`max_new_tokens`, `temperature`, `top_p`, `top_k` (-1 = off), `stop_token_ids`,
 * `sampling_seed`, `skip_special_tokens: false`, and the neutral `min_p: 0`, `repetition_penalty: 1` so no model default
 * applies), and `return_logprob: true` for the sampled tokens' logprobs.
 * @see sgl-project/sglang `GenerateReqInput` (`python/sglang/srt/managers/io_struct.py`) and its sampling-parameter
 * docs (sgl-project/sglang/docs/basic_usage/sampling_params.md).
 */
export function sglangGenerateRequest(
  promptTokens: readonly number[],
  params: SamplingParams,
  stop: readonly number[],
  seed: number | undefined,
): Record<string, unknown> {
  return {
    input_ids: [...promptTokens],
    sampling_params: {
      max_new_tokens: params.maxTokens,
      temperature: params.temperature ?? 1,
      top_p: params.topP ?? 1,
      top_k: params.topK !== undefined && params.topK > 0 ? params.topK : -1,
      min_p: 0,
      repetition_penalty: 1,
      stop_token_ids: [...stop],
      skip_special_tokens: false,
      ...(seed !== undefined ? { sampling_seed: seed } : {}),
    },
    return_logprob: true,
    logprob_start_len: -1,
    stream: false,
  };
}

/**
 * Reads one sequence from a SGLang `/generate` answer: `meta_info.output_token_logprobs` is a list of
 * `[logprob, token_id, text|null]`, one per generated token; `meta_info.finish_reason.type` is `stop` or `length`.
 * @throws SamplerResponseError naming `return_logprob` when the per-token list is missing or malformed.
 */
export function parseSglangGenerate(body: unknown): SampledSequence {
  const meta = (Array.isArray(body) ? body[0] : body) as { meta_info?: { output_token_logprobs?: unknown; finish_reason?: unknown } } | null;
  const rows = meta?.meta_info?.output_token_logprobs;
  if (!Array.isArray(rows)) {
    throw new SamplerResponseError(
      'meta_info.output_token_logprobs',
      'return_logprob',
      'the server returned no per-token [logprob, token_id] list for return_logprob: true',
    );
  }
  const tokens: number[] = [];
  const logprobs: number[] = [];
  rows.forEach((r: unknown, i) => {
    const [lp, id] = Array.isArray(r) ? (r as unknown[]) : [];
    if (typeof lp !== 'number' || !Number.isFinite(lp) || !Number.isInteger(id) || (id as number) < 0) {
      throw new SamplerResponseError(
        `meta_info.output_token_logprobs[${i}]`,
        'return_logprob',
        `expected [logprob, token_id, …], got ${JSON.stringify(r).slice(0, 200)}`,
      );
    }
    tokens.push(id as number);
    logprobs.push(lp);
  });
  const fr = meta?.meta_info?.finish_reason;
  const type = typeof fr === 'object' && fr !== null ? (fr as { type?: unknown }).type : fr;
  return { tokens, logprobs, stopReason: mapFinishReason(type, 'meta_info.finish_reason') };
}
