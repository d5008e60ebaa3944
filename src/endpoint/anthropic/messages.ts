import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Renderer } from '../../chat/types.js';
import { clientGone } from '../../http/client-signal.js';
import { toApiError } from '../openai/api-error.js';
import { sampleTurn, type ChoiceResult, type TurnHooks } from '../openai/chat-turn.js';
import { parseBody } from '../openai/request-schemas.js';
import { textDeltas } from '../openai/responses.js';
import { samplingParams } from '../openai/sampling.js';
import { SseWriter } from '../openai/sse.js';
import { checkMessagesRequest, messagesInput, messagesSchema, messagesTools } from './messages-input.js';

const hex = (n: number) => randomUUID().replace(/-/g, '').slice(0, n);

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;

/** The content blocks of one choice: the text before any calls (or the whole reply, when not empty), then one `tool_use` per call. */
function contentOf(r: ChoiceResult): ContentBlock[] {
  const text = r.message.content ?? '';
  return [
    ...(text !== '' ? [{ type: 'text' as const, text }] : []),
    ...r.message.toolCalls.map((c) => ({
      type: 'tool_use' as const,
      id: c.id ?? `toolu_${hex(24)}`,
      name: c.name,
      input: JSON.parse(c.arguments) as Record<string, unknown>,
    })),
  ];
}

/** Anthropic's error `type` for an HTTP status. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/**
 * `POST /v1/messages` (Anthropic's Messages API) on a recording server: `system`, `messages` with text, `tool_use`
 * and `tool_result` blocks, custom `tools` (`input_schema`), `max_tokens`; the answer's content is a text block (the
 * reply, or the text before its calls) then one `tool_use` block per call, with `stop_reason` `end_turn`, `tool_use`
 * or `max_tokens`. `stream: true` answers with Anthropic's event stream (`message_start`, `content_block_start` /
 * `_delta` / `_stop`, `message_delta`, `message_stop`). The client's `temperature`/`top_p`/`top_k` are not used (the
 * recorder samples with the trainer's settings). Admitted, sampled and recorded like chat completions ({@link TurnHooks}).
 * @throws OpenAIApiError 400 for a bad or unsupported request (images, server tools, forced tool choice, stop
 *   sequences, thinking), and whatever the hooks refuse — answered in Anthropic's error shape by {@link anthropicRoutes}.
 */
export async function messagesHandler(renderer: Renderer, rawBody: unknown, reply: FastifyReply, hooks: TurnHooks): Promise<unknown> {
  const b = parseBody(messagesSchema, rawBody);
  checkMessagesRequest(b);
  const tools = messagesTools(b.tools);
  const messages = messagesInput(b);
  const params = { ...samplingParams({}, b.max_tokens, renderer), signal: clientGone(reply) };
  const ticket = hooks.begin({ messages, tools, n: 1 });
  const { prompt, results } = await sampleTurn(renderer, ticket, params, tools.length > 0 && b.tool_choice?.type !== 'none');
  try {
    const r = results[0]!;
    const content = contentOf(r);
    const usage = { input_tokens: prompt.length, output_tokens: r.seq.tokens.length, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = {
      id: `msg_${hex(24)}`,
      type: 'message',
      role: 'assistant',
      model: b.model,
      content,
      stop_reason: STOP_REASON[r.finishReason],
      stop_sequence: null,
      usage,
    };
    const events: [string, unknown][] = [];
    if (b.stream) {
      events.push(['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 0 } } }]);
      content.forEach((blk, index) => {
        if (blk.type === 'text') {
          events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
          for (const text of textDeltas(blk.text, r, (t) => renderer.decode(t), params.stop ?? []))
            events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }]);
        } else {
          events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...blk, input: {} } }]);
          events.push([
            'content_block_delta',
            { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(blk.input) } },
          ]);
        }
        events.push(['content_block_stop', { type: 'content_block_stop', index }]);
      });
      events.push([
        'message_delta',
        { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
      ]);
      events.push(['message_stop', { type: 'message_stop' }]);
    }
    ticket.deliverOn(reply.raw);
    if (!b.stream) return message;
    const sse = new SseWriter(reply);
    for (const [name, data] of events) sse.event(name, data);
    sse.end();
    return reply;
  } catch (e) {
    ticket.release();
    throw e;
  }
}

/** Options of {@link anthropicRoutes}. */
export interface AnthropicRoutesOptions {
  readonly renderer: Renderer;
  /** The recording server's hooks for a request; may throw an `OpenAIApiError` (401 for an unknown key). */
  readonly turnHooks: (request: FastifyRequest) => TurnHooks;
}

/**
 * Anthropic's Messages API as a Fastify plugin: `POST /v1/messages` (see {@link messagesHandler}); the key comes in
 * `x-api-key` (or `Authorization: Bearer`). Errors are answered in Anthropic's shape
 * `{ type: 'error', error: { type, message } }` with the same statuses as the OpenAI routes.
 */
export async function anthropicRoutes(app: FastifyInstance, opts: AnthropicRoutesOptions): Promise<void> {
  await app.register(
    async (v1) => {
      v1.setErrorHandler(async (error, _req, reply) => {
        const api = toApiError(error);
        if (reply.raw.headersSent) return void reply.raw.end();
        await reply.code(api.status).send({ type: 'error', error: { type: errorType(api.status), message: api.message } });
      });
      v1.post('/messages', async (req, reply) => messagesHandler(opts.renderer, req.body, reply, opts.turnHooks(req)));
    },
    { prefix: '/v1' },
  );
}
