import type { Renderer } from '../../chat/types.js';
import type { OpenAIRequestLimits } from './types.js';
import { MAX_TOP_LOGPROBS, type SampledSequence, type SamplingParams, type TokenLogprob } from '../../types/sampling.js';
import { OpenAIApiError } from './api-error.js';

/** Fields of a request that set how tokens are drawn (both endpoints). */
export interface SamplingFields {
  readonly n?: number | undefined;
  readonly temperature?: number | undefined;
  readonly top_p?: number | undefined;
  readonly top_k?: number | undefined;
  readonly seed?: number | undefined;
  readonly stop?: string | string[] | null | undefined;
  readonly stop_token_ids?: number[] | null | undefined;
  readonly ignore_eos?: boolean | undefined;
  readonly min_p?: number | null | undefined;
  readonly repetition_penalty?: number | null | undefined;
  readonly presence_penalty?: number | null | undefined;
  readonly frequency_penalty?: number | null | undefined;
}

/** Settings the engine does not implement, with their neutral value: anything else is refused, never ignored. */
const NEUTRAL = { min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

/**
 * The {@link SamplingParams} of a request: `n`, `temperature` (default 1), `top_p` (1), `top_k` (> 0 only), `seed`,
 * and stop ids = `stop_token_ids` ∪ the model's stop tokens (unless `ignore_eos`), as vLLM does.
 * @throws OpenAIApiError 400 for stop strings (the engine stops on token ids only; use `stop_token_ids`), and for a
 *   non-neutral `min_p`, `repetition_penalty`, `presence_penalty` or `frequency_penalty` (not implemented; refused
 *   rather than ignored, so logprobs never silently describe another distribution).
 */
export function samplingParams(b: SamplingFields, maxTokens: number, renderer: Renderer): SamplingParams {
  for (const [key, neutral] of Object.entries(NEUTRAL) as [keyof typeof NEUTRAL, number][]) {
    const v = b[key];
    if (v !== undefined && v !== null && v !== neutral) {
      throw new OpenAIApiError(400, `${key} ${v} is not supported by this server (only ${neutral})`, { param: key, errorCode: 'unsupported_parameter' });
    }
  }
  const stopStrings = b.stop === undefined || b.stop === null ? [] : typeof b.stop === 'string' ? [b.stop] : b.stop;
  if (stopStrings.length > 0) {
    throw new OpenAIApiError(400, 'stop strings are not supported by this server (it stops on token ids only); use stop_token_ids', {
      param: 'stop',
      errorCode: 'unsupported_parameter',
    });
  }
  const stop = [...new Set([...(b.stop_token_ids ?? []), ...(b.ignore_eos ? [] : renderer.stopTokens)])];
  return {
    numSamples: b.n ?? 1,
    maxTokens,
    temperature: b.temperature ?? 1,
    topP: b.top_p ?? 1,
    ...(b.top_k !== undefined && b.top_k > 0 ? { topK: b.top_k } : {}),
    ...(b.seed !== undefined ? { seed: b.seed } : {}),
    stop,
  };
}

/** `tokens` without its last token when that token is one of `stop` (the text a client sees omits the stop token). */
export function withoutStop(tokens: readonly number[], stop: readonly number[]): readonly number[] {
  const last = tokens[tokens.length - 1];
  return last !== undefined && stop.includes(last) ? tokens.slice(0, -1) : tokens;
}

/** Checks token ids against the vocabulary. @throws OpenAIApiError 400 naming `param`. */
export function checkVocab(tokens: readonly number[], vocabSize: number, param: string): void {
  const bad = tokens.find((t) => t >= vocabSize);
  if (bad !== undefined)
    throw new OpenAIApiError(400, `token id ${bad} is outside the vocabulary of ${vocabSize} tokens`, { param, errorCode: 'invalid_value' });
}

/**
 * The number of alternatives a request asks for per position (`logprobs: k` on completions, `top_logprobs: k` on chat),
 * checked against {@link MAX_TOP_LOGPROBS} (vLLM's default `max_logprobs`).
 * @throws OpenAIApiError 400 naming `param` above the cap.
 */
export function topLogprobsCount(k: number | null | undefined, param: string): number {
  if (k === undefined || k === null) return 0;
  if (k > MAX_TOP_LOGPROBS) throw new OpenAIApiError(400, `${param} must be at most ${MAX_TOP_LOGPROBS}, got ${k}`, { param, errorCode: 'invalid_value' });
  return k;
}

/**
 * The alternatives of every position of `seq` when `k > 0` (the sampler was asked for them).
 * @throws OpenAIApiError 400 naming `param` when the model's sampler returned none (it cannot rank alternatives).
 */
export function alternativesOf(seq: SampledSequence, k: number, param: string): readonly (readonly TokenLogprob[])[] | undefined {
  if (k === 0) return undefined;
  if (seq.topLogprobs === undefined || seq.topLogprobs.length !== seq.tokens.length) {
    throw new OpenAIApiError(400, `${param} > 0: this model's sampler does not return alternative tokens`, { param, errorCode: 'unsupported_parameter' });
  }
  return seq.topLogprobs;
}

/**
 * Refuses a request past `limits` before anything is sampled: `n`, `max_tokens`, and prompts × `n`. `request`: its
 * prompt count, `n`, the tokens asked for, and the name of the parameter that asked (`max_tokens` or `max_completion_tokens`).
 * @throws OpenAIApiError 400 `invalid_value` naming the parameter.
 */
export function checkRequestLimits(
  limits: OpenAIRequestLimits | undefined,
  request: { readonly prompts: number; readonly n: number; readonly maxTokens: number; readonly maxTokensParam: string },
): void {
  const { prompts, n, maxTokens, maxTokensParam } = request;
  const maxN = limits?.maxN ?? 64;
  const maxT = limits?.maxTokens ?? 4096;
  const maxSeq = limits?.maxSequences ?? 256;
  if (n > maxN) throw new OpenAIApiError(400, `n ${n} exceeds this server's limit of ${maxN}`, { param: 'n', errorCode: 'invalid_value' });
  if (maxTokens > maxT)
    throw new OpenAIApiError(400, `${maxTokensParam} ${maxTokens} exceeds this server's limit of ${maxT}`, {
      param: maxTokensParam,
      errorCode: 'invalid_value',
    });
  if (prompts * n > maxSeq) {
    throw new OpenAIApiError(400, `${prompts} prompts × n ${n} = ${prompts * n} sequences exceed this server's limit of ${maxSeq} per request`, {
      param: 'prompt',
      errorCode: 'invalid_value',
    });
  }
}
