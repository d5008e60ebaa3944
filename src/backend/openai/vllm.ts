import type { SampledSequence, SamplingParams, StopReason } from '../../types/sampling.js';
import { SamplerResponseError } from '../../errors/sampler-errors.js';

/**
 * The body of vLLM's `POST /v1/completions` for one {@link SamplingParams} call: the prompt as token ids,
 * `n` sequences, the sampled tokens' ids (`return_token_ids`, and `return_tokens_as_token_ids` so older servers
 * still name each token by id) and their logprobs (`logprobs: 0`: the sampled token's own, no alternatives).
 * Every setting that shapes the distribution is sent explicitly (`top_k: -1` = off, `min_p: 0`, `repetition_penalty: 1`):
 * vLLM otherwise fills omitted ones from the model's `generation_config.json` (Qwen3: `top_k` 20, `top_p` 0.95), and the
 * tokens would come from a distribution the caller did not ask for. `seed` only when given. Special tokens are kept in the text.
 * @see vllm-project/vllm `vllm/entrypoints/openai/completion/protocol.py` (`CompletionRequest`; SkyRL's forwarding client sends the same fields).
 */
export function vllmCompletionRequest(
  model: string,
  promptTokens: readonly number[],
  params: SamplingParams,
  stop: readonly number[],
): Record<string, unknown> {
  return {
    model,
    prompt: [...promptTokens],
    n: params.numSamples ?? 1,
    max_tokens: params.maxTokens,
    temperature: params.temperature ?? 1,
    top_p: params.topP ?? 1,
    top_k: params.topK !== undefined && params.topK > 0 ? params.topK : -1,
    min_p: 0,
    repetition_penalty: 1,
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    stop_token_ids: [...stop],
    logprobs: 0,
    return_token_ids: true,
    return_tokens_as_token_ids: true,
    skip_special_tokens: false,
    stream: false,
  };
}

/** Maps an OpenAI / vLLM / SGLang finish reason; anything but `stop` and `length` (e.g. `abort`) is an error. */
export function mapFinishReason(raw: unknown, field: string): StopReason {
  if (raw === 'stop' || raw === 'length') return raw;
  throw new SamplerResponseError(field, null, `the server ended the sequence with finish reason ${JSON.stringify(raw)} (expected "stop" or "length")`);
}

interface VllmChoice {
  index?: unknown;
  token_ids?: unknown;
  finish_reason?: unknown;
  logprobs?: { tokens?: unknown; token_logprobs?: unknown } | null;
}

const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= 0);

/** Token ids named `"token_id:N"` (vLLM's `return_tokens_as_token_ids`), or `null` when they are not all in that form. */
function idsFromTokenStrings(tokens: unknown): number[] | null {
  if (!Array.isArray(tokens)) return null;
  const out: number[] = [];
  for (const t of tokens) {
    const m = typeof t === 'string' ? /^token_id:(\d+)$/.exec(t) : null;
    if (!m) return null;
    out.push(Number(m[1]));
  }
  return out;
}

/**
 * Reads `n` sampled sequences from a vLLM `/v1/completions` answer: ids from `choices[i].token_ids` (or, failing
 * that, from `logprobs.tokens` written as `token_id:N`), logprobs from `logprobs.token_logprobs`.
 * @throws SamplerResponseError naming the missing request option when the ids or logprobs are absent, when there are
 *   not `n` choices, or when ids and logprobs differ in length. Never re-encodes text.
 */
export function parseVllmCompletion(body: unknown, n: number): SampledSequence[] {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length !== n) {
    throw new SamplerResponseError('choices', null, `expected ${n} choices, got ${Array.isArray(choices) ? choices.length : 'none'}`);
  }
  const sorted = [...(choices as VllmChoice[])].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  return sorted.map((c, i) => {
    const where = `choices[${i}]`;
    const tokens = isIds(c.token_ids) ? c.token_ids : idsFromTokenStrings(c.logprobs?.tokens);
    if (!tokens) {
      throw new SamplerResponseError(
        `${where}.token_ids`,
        'return_token_ids',
        'the server returned no token ids. The sampler sends return_token_ids: true (vLLM ≥ 0.10.2 answers choices[].token_ids) ' +
          'and return_tokens_as_token_ids: true (older vLLM names each logprobs token "token_id:N"); this server honours neither. ' +
          'Upgrade the server, or start vLLM with --return-tokens-as-token-ids.',
      );
    }
    const lp = c.logprobs?.token_logprobs;
    if (!Array.isArray(lp)) {
      throw new SamplerResponseError(
        `${where}.logprobs.token_logprobs`,
        'logprobs',
        'the server returned no per-token logprobs for the request option logprobs: 0',
      );
    }
    if (lp.length !== tokens.length || !lp.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new SamplerResponseError(
        `${where}.logprobs.token_logprobs`,
        'logprobs',
        `expected ${tokens.length} finite logprobs (one per token id), got ${JSON.stringify(lp).slice(0, 200)}`,
      );
    }
    return { tokens, logprobs: lp as number[], stopReason: mapFinishReason(c.finish_reason, `${where}.finish_reason`) };
  });
}
