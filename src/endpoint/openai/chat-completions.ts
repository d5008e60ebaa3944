import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Renderer } from '../../chat/types.js';
import type { SampledSequence, TokenLogprob } from '../../types/sampling.js';
import { OpenAIApiError } from './api-error.js';
import { toMessages, toToolDefinitions } from './chat-messages.js';
import { chatSchema, parseBody, type ChatBody } from './request-schemas.js';
import { clientGone } from '../../http/client-signal.js';
import { alternativesOf, checkRequestLimits, checkVocab, samplingParams, topLogprobsCount, withoutStop } from './sampling.js';
import { SseWriter } from './sse.js';
import { decodeChoices, sampleTurn, type ChoiceResult, type TurnHooks, type TurnTicket } from './chat-turn.js';
import type { RouteContext } from './types.js';

export type { ChoiceResult } from './chat-turn.js';

function tokenEntry(renderer: Renderer, token: number, logprob: number) {
  const s = renderer.decode([token]);
  return { token: s, logprob, bytes: [...Buffer.from(s, 'utf8')] };
}

/** One `logprobs.content` entry: the sampled token and, with `top_logprobs: k`, the k most likely at its position. */
function logprobEntry(renderer: Renderer, token: number, logprob: number, alternatives: readonly TokenLogprob[] = []) {
  return { ...tokenEntry(renderer, token, logprob), top_logprobs: alternatives.map((a) => tokenEntry(renderer, a.token, a.logprob)) };
}

function validate(b: ChatBody): void {
  if (topLogprobsCount(b.top_logprobs, 'top_logprobs') > 0 && b.logprobs !== true) {
    throw new OpenAIApiError(400, 'top_logprobs requires logprobs: true', { param: 'top_logprobs', errorCode: 'invalid_value' });
  }
  const tc = b.tool_choice;
  if (tc !== undefined && tc !== null && tc !== 'auto' && tc !== 'none') {
    throw new OpenAIApiError(400, 'tool_choice must be "auto" or "none" (this server cannot force a call)', {
      param: 'tool_choice',
      errorCode: 'unsupported_parameter',
    });
  }
}

/**
 * `POST /v1/chat/completions`: `messages` rendered with the model's chat template (and `tools` in the template's
 * tool block; vLLM's `chat_template_kwargs` as template variables), then sampled from token ids. With tools offered
 * (and `tool_choice` not `"none"`), the completion's tool calls, in the served model family's syntax (the renderer's
 * parser, several per turn), become OpenAI `tool_calls` (arguments as a JSON string) and `finish_reason: "tool_calls"`.
 * `logprobs: true` gives the sampled tokens' logprobs, and `top_logprobs: k` (0 ≤ k ≤ 20, needs `logprobs: true`) the
 * k most likely tokens at each position under the same distribution; vLLM's `return_token_ids` adds
 * `prompt_token_ids` and `choices[].token_ids`.
 * `stream: true` answers with server-sent events (chunks sent once the engine has the sequence).
 * With `hooks` (a recording server) the request is admitted by `hooks.begin` before anything is rendered, rendered and
 * sampled by its ticket, and recorded only once the whole answer was sent (nothing for a 400 or a client gone).
 */
export async function chatCompletionsHandler(ctx: RouteContext, rawBody: unknown, reply: FastifyReply, hooks?: TurnHooks): Promise<unknown> {
  const b = parseBody(chatSchema, rawBody);
  const { renderer } = ctx.opts;
  const modelName = b.model;
  validate(b);
  const tools = toToolDefinitions(b.tools);
  const messages = toMessages(b.messages);
  const asked = b.max_completion_tokens ?? b.max_tokens ?? undefined;
  const k = topLogprobsCount(b.top_logprobs, 'top_logprobs');
  const parseTools = tools.length > 0 && b.tool_choice !== 'none';
  // Sampling stops (its rows are freed) as soon as the client disconnects.
  const signal = clientGone(reply);
  let prompt: readonly number[];
  let results: readonly ChoiceResult[];
  let ticket: TurnTicket | undefined;
  if (hooks) {
    // Every refusal that needs no sampling comes before the admission; the admission comes before any rendering.
    const params = { ...samplingParams(b, asked ?? ctx.opts.limits?.maxTokens ?? 4096, renderer), ...(k > 0 ? { topLogprobs: k } : {}), signal };
    ticket = hooks.begin({ messages, tools, n: b.n ?? 1, templateKwargs: b.chat_template_kwargs ?? undefined });
    ({ prompt, results } = await sampleTurn(renderer, ticket, params, parseTools));
  } else {
    prompt = renderer.renderPrompt(messages, {
      tools,
      addGenerationPrompt: b.add_generation_prompt ?? true,
      ...(b.chat_template_kwargs ? { templateKwargs: b.chat_template_kwargs } : {}),
    });
    checkVocab(prompt, renderer.vocabSize, 'messages');
    const ctxLeft = ctx.opts.maxContextTokens !== undefined ? ctx.opts.maxContextTokens - prompt.length : undefined;
    if (ctxLeft !== undefined && ctxLeft <= 0) {
      throw new OpenAIApiError(400, `the rendered prompt has ${prompt.length} tokens; the context holds ${ctx.opts.maxContextTokens}`, {
        param: 'messages',
        errorCode: 'context_length_exceeded',
      });
    }
    checkRequestLimits(ctx.opts.limits, {
      prompts: 1,
      n: b.n ?? 1,
      maxTokens: asked ?? 0,
      maxTokensParam: b.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
    });
    const fallback = Math.min(ctxLeft ?? ctx.opts.defaultChatMaxTokens ?? 1024, ctx.opts.limits?.maxTokens ?? 4096);
    const params = { ...samplingParams(b, asked ?? fallback, renderer), ...(k > 0 ? { topLogprobs: k } : {}), signal };
    const seqs = await (await ctx.sampler(b.model, reply.request)).sample(prompt, params);
    results = decodeChoices(renderer, seqs, params.stop ?? [], parseTools);
  }
  try {
    const answer = chatAnswer(ctx, b, modelName, prompt, results, k);
    // Recorded once the answer is fully written with a 2xx status; a client gone before that records nothing.
    ticket?.deliverOn(reply.raw);
    if (answer.chunks) {
      const sse = new SseWriter(reply);
      for (const c of answer.chunks) sse.send(c);
      sse.done();
      return reply;
    }
    return answer.body;
  } catch (e) {
    ticket?.release();
    throw e;
  }
}

/** The whole answer, built before anything is sent (a fault while building it is a clean error, never half a stream). */
function chatAnswer(
  ctx: RouteContext,
  b: ChatBody,
  modelName: string,
  prompt: readonly number[],
  results: readonly ChoiceResult[],
  k: number,
): { body?: unknown; chunks?: unknown[] } {
  const { renderer } = ctx.opts;
  const completionTokens = results.reduce((s, r) => s + r.seq.tokens.length, 0);
  const usage = { prompt_tokens: prompt.length, completion_tokens: completionTokens, total_tokens: prompt.length + completionTokens };
  const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
  const callId = () => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const entryAt = (seq: SampledSequence, i: number) => logprobEntry(renderer, seq.tokens[i]!, seq.logprobs[i]!, alternativesOf(seq, k, 'top_logprobs')?.[i]);
  const logprobsOf = (seq: SampledSequence) => (b.logprobs ? { content: seq.tokens.map((_, i) => entryAt(seq, i)) } : null);
  const stop = b.ignore_eos ? (b.stop_token_ids ?? []) : [...(b.stop_token_ids ?? []), ...renderer.stopTokens];

  if (b.stream) {
    const head = { id, object: 'chat.completion.chunk' as const, created: ctx.now(), model: modelName };
    const chunks: unknown[] = [];
    results.forEach((r, index) => {
      chunks.push({ ...head, choices: [{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
      // Token by token only when the reply is the decoded text itself; otherwise (tool calls, a harmony answer's
      // final channel, calls withheld by a hook) the reply's content goes in one chunk.
      if (r.message.toolCalls.length > 0 || r.message.content !== r.text) {
        if (r.message.content)
          chunks.push({ ...head, choices: [{ index, delta: { content: r.message.content }, logprobs: logprobsOf(r.seq), finish_reason: null }] });
        r.message.toolCalls.forEach((c, k) => {
          chunks.push({
            ...head,
            choices: [
              {
                index,
                delta: { tool_calls: [{ index: k, id: c.id ?? callId(), type: 'function', function: { name: c.name, arguments: c.arguments } }] },
                logprobs: null,
                finish_reason: null,
              },
            ],
          });
        });
      } else {
        // one chunk per sampled token: the text it adds (held back while it ends in an incomplete UTF-8 sequence)
        const shown = withoutStop(r.seq.tokens, stop);
        let sent = '';
        r.seq.tokens.forEach((_, i) => {
          const upTo = renderer.decode(shown.slice(0, i + 1));
          const delta = upTo.endsWith('\uFFFD') && i + 1 < shown.length ? '' : upTo.slice(sent.length);
          if (delta) sent += delta;
          chunks.push({
            ...head,
            choices: [{ index, delta: { content: delta }, logprobs: b.logprobs ? { content: [entryAt(r.seq, i)] } : null, finish_reason: null }],
          });
        });
      }
      chunks.push({ ...head, choices: [{ index, delta: {}, logprobs: null, finish_reason: r.finishReason }] });
    });
    if (b.stream_options?.include_usage) chunks.push({ ...head, choices: [], usage });
    return { chunks };
  }

  return {
    body: {
      id,
      object: 'chat.completion',
      created: ctx.now(),
      model: modelName,
      choices: results.map((r, index) => ({
        index,
        message: {
          role: 'assistant',
          content: r.message.content,
          ...(r.message.toolCalls.length > 0
            ? { tool_calls: r.message.toolCalls.map((c) => ({ id: c.id ?? callId(), type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
        logprobs: logprobsOf(r.seq),
        finish_reason: r.finishReason,
        ...(b.return_token_ids ? { token_ids: [...r.seq.tokens] } : {}),
      })),
      usage,
      ...(b.return_token_ids ? { prompt_token_ids: prompt } : {}),
    },
  };
}
