import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { SampledSequence } from '../../types/sampling.js';
import { OpenAIApiError } from './api-error.js';
import { completionSchema, parseBody, type CompletionBody } from './request-schemas.js';
import { clientGone } from '../../http/client-signal.js';
import { alternativesOf, checkRequestLimits, checkVocab, samplingParams, topLogprobsCount, withoutStop } from './sampling.js';
import { SseWriter } from './sse.js';
import type { RouteContext } from './types.js';

interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[];
  text_offset: number[];
}

/** The prompts of a request as token ids (text is encoded with the model's tokenizer, no special tokens added). */
function promptTokens(b: CompletionBody, encode: (s: string) => number[]): number[][] {
  const p = b.prompt;
  if (typeof p === 'string') return [encode(p)];
  if (p.length > 0 && typeof p[0] === 'number') return [p as number[]];
  return (p as (string | number[])[]).map((x) => (typeof x === 'string' ? encode(x) : x));
}

/**
 * `POST /v1/completions` as vLLM answers it: `prompt` as text, token ids, or a list of either (choice index
 * `p·n + j`); `logprobs: k` (0 ≤ k ≤ 20, as vLLM's default `max_logprobs`): `token_logprobs` has each sampled token's
 * logprob and `top_logprobs` at each position the sampled token and the k most likely tokens (token string → logprob,
 * under the same distribution as the sampled logprob: temperature applied, full vocabulary); `echo` with `k > 0` is
 * refused with 400;
 * `return_token_ids` (`choices[].token_ids`, `prompt_token_ids`); `return_tokens_as_token_ids` (`token_id:N` token
 * strings); `echo` (the prompt's text and, with `logprobs`, its tokens first, the first one's logprob `null`);
 * `prompt_logprobs: 0` (`choices[].prompt_logprobs`: `null`, then `{ "<id>": { logprob, decoded_token } }` per token,
 * under the unscaled model distribution). Streaming sends one chunk per choice when it is done.
 */
export async function completionsHandler(ctx: RouteContext, rawBody: unknown, reply: FastifyReply): Promise<unknown> {
  const b = parseBody(completionSchema, rawBody);
  const { renderer } = ctx.opts;
  const k = topLogprobsCount(b.logprobs, 'logprobs');
  if (k > 0 && b.echo) {
    throw new OpenAIApiError(
      400,
      'echo with logprobs > 0 is not supported (the prompt tokens\u2019 alternatives are not computed); use logprobs: 0 with echo',
      { param: 'logprobs', errorCode: 'unsupported_parameter' },
    );
  }
  if (b.prompt_logprobs !== undefined && b.prompt_logprobs !== null && b.prompt_logprobs !== 0) {
    throw new OpenAIApiError(400, 'only prompt_logprobs: 0 (each prompt token\u2019s own logprob) is supported', {
      param: 'prompt_logprobs',
      errorCode: 'unsupported_parameter',
    });
  }
  if (b.stream && b.prompt_logprobs !== undefined && b.prompt_logprobs !== null) {
    throw new OpenAIApiError(400, 'prompt_logprobs is not allowed with stream', { param: 'prompt_logprobs', errorCode: 'invalid_value' });
  }
  const promptCount = typeof b.prompt === 'string' || typeof b.prompt[0] === 'number' ? 1 : b.prompt.length;
  checkRequestLimits(ctx.opts.limits, { prompts: promptCount, n: b.n ?? 1, maxTokens: b.max_tokens ?? 16, maxTokensParam: 'max_tokens' });
  const prompts = promptTokens(b, (s) => renderer.encode(s));
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new OpenAIApiError(400, 'the prompt is empty', { param: 'prompt', errorCode: 'invalid_value' });
    checkVocab(p, renderer.vocabSize, prompts.length > 1 ? `prompt.${i}` : 'prompt');
  });
  // Sampling stops (its rows are freed) as soon as the client disconnects.
  const params = { ...samplingParams(b, b.max_tokens ?? 16, renderer), ...(k > 0 ? { topLogprobs: k } : {}), signal: clientGone(reply) };
  const stop = params.stop ?? [];
  const n = params.numSamples ?? 1;
  const wantLogprobs = b.logprobs !== undefined && b.logprobs !== null;
  const wantPromptLogprobs = b.prompt_logprobs === 0;
  const sampler = await ctx.sampler(b.model, reply.request);
  const tokenString = (t: number): string => (b.return_tokens_as_token_ids ? `token_id:${t}` : renderer.decode([t]));
  const skipSpecial = b.skip_special_tokens ?? true;

  const perPrompt = await Promise.all(
    prompts.map(async (prompt) => {
      const [seqs, promptLps] = await Promise.all([
        sampler.sample(prompt, params),
        (b.echo && wantLogprobs) || wantPromptLogprobs ? sampler.computeLogprobs(prompt) : Promise.resolve(null),
      ]);
      return { prompt, seqs, promptLps };
    }),
  );

  const choices = perPrompt.flatMap(({ prompt, seqs, promptLps }, p) =>
    seqs.map((seq: SampledSequence, j) => {
      const shown = skipSpecial ? withoutStop(seq.tokens, stop) : seq.tokens;
      let text = renderer.decode(shown);
      let logprobs: CompletionLogprobs | null = null;
      if (wantLogprobs) {
        const ids = b.echo ? [...prompt, ...seq.tokens] : [...seq.tokens];
        const lps: (number | null)[] = b.echo ? [...promptLps!, ...seq.logprobs] : [...seq.logprobs];
        const tokens = ids.map(tokenString);
        let offset = 0;
        const text_offset = tokens.map((s) => {
          const at = offset;
          offset += s.length;
          return at;
        });
        const alternatives = alternativesOf(seq, k, 'logprobs');
        // As vLLM: the sampled token's own entry, then the k most likely (a token among them is listed once).
        const top = (lp: number | null, i: number): Record<string, number> | null => {
          if (lp === null) return null;
          const entry: Record<string, number> = { [tokens[i]!]: lp };
          for (const a of alternatives?.[i] ?? []) entry[tokenString(a.token)] ??= a.logprob;
          return entry;
        };
        logprobs = { tokens, token_logprobs: lps, top_logprobs: lps.map(top), text_offset };
      }
      if (b.echo) text = renderer.decode(prompt) + text;
      const last = seq.tokens[seq.tokens.length - 1];
      return {
        index: p * n + j,
        text,
        logprobs,
        finish_reason: seq.stopReason,
        stop_reason: seq.stopReason === 'stop' && last !== undefined && stop.includes(last) ? last : null,
        ...(b.return_token_ids ? { token_ids: [...seq.tokens], prompt_token_ids: prompt } : {}),
        ...(wantPromptLogprobs
          ? {
              prompt_logprobs: promptLps!.map((lp, k) =>
                lp === null ? null : { [String(prompt[k])]: { logprob: lp, decoded_token: renderer.decode([prompt[k]!]) } },
              ),
            }
          : {}),
      };
    }),
  );
  const promptTokensCount = prompts.reduce((s, p) => s + p.length, 0);
  const completionTokens = perPrompt.reduce((s, { seqs }) => s + seqs.reduce((t, q) => t + q.tokens.length, 0), 0);
  const usage = { prompt_tokens: promptTokensCount, completion_tokens: completionTokens, total_tokens: promptTokensCount + completionTokens };
  const head = { id: `cmpl-${randomUUID().replace(/-/g, '')}`, object: 'text_completion' as const, created: ctx.now(), model: b.model };
  if (b.stream) {
    const sse = new SseWriter(reply);
    for (const c of choices) sse.send({ ...head, choices: [c] });
    if (b.stream_options?.include_usage) sse.send({ ...head, choices: [], usage });
    sse.done();
    return reply;
  }
  return { ...head, choices, usage };
}
