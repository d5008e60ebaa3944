import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Message, ToolCall } from '../../types/message.js';
import { clientGone } from '../../http/client-signal.js';
import { OpenAIApiError } from './api-error.js';
import { sampleTurn, type ChoiceResult, type TurnHooks } from './chat-turn.js';
import { parseBody } from './request-schemas.js';
import { checkResponsesRequest, responsesInput, responsesSchema, responsesTools, type ResponsesBody } from './responses-input.js';
import { samplingParams, withoutStop } from './sampling.js';
import { SseWriter } from './sse.js';
import type { RouteContext } from './types.js';

const hex = (n: number) => randomUUID().replace(/-/g, '').slice(0, n);

/** One output item as the Responses API sends it. */
type OutputItem =
  | { id: string; type: 'message'; status: 'completed'; role: 'assistant'; content: { type: 'output_text'; text: string; annotations: []; logprobs: [] }[] }
  | { id: string; type: 'function_call'; status: 'completed'; call_id: string; name: string; arguments: string };

/** The output items of one choice (text first, then each call) and the assistant message the client will send back for them. */
function outputOf(r: ChoiceResult): { items: OutputItem[]; assistant: Message } {
  const items: OutputItem[] = [];
  const text = r.message.content ?? '';
  if (text !== '' || r.message.toolCalls.length === 0) {
    items.push({
      id: `msg_${hex(32)}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  const calls: ToolCall[] = [];
  for (const c of r.message.toolCalls) {
    const callId = c.id ?? `call_${hex(24)}`;
    items.push({ id: `fc_${hex(32)}`, type: 'function_call', status: 'completed', call_id: callId, name: c.name, arguments: c.arguments });
    calls.push({ type: 'function', id: callId, function: { name: c.name, arguments: JSON.parse(c.arguments) as Record<string, unknown> } });
  }
  return { items, assistant: { role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) } };
}

/**
 * `POST /v1/responses` (OpenAI's Responses API) on a recording server: `input` (a string, or message,
 * `function_call` and `function_call_output` items), `instructions` (a system message first), function `tools`,
 * `previous_response_id` (the conversation of an earlier response of the same key, kept by `hooks.responses`, then
 * the new input), `max_output_tokens`; `stream: true` answers with the Responses event stream
 * (`response.created` … `response.completed`). Output: a `message` item with the text before any calls (or the whole
 * reply), then one `function_call` item per call; `status: 'incomplete'` (`max_output_tokens`) when the completion was
 * cut at its token limit, as OpenAI answers. The client's `temperature`/`top_p` are not used (the recorder samples
 * with the trainer's settings). Admitted, sampled and recorded like chat completions (see {@link TurnHooks}).
 * @throws OpenAIApiError 400 for a bad or unsupported request (hosted tools, non-text parts, forced tool choice,
 *   structured output, unknown `previous_response_id`), and whatever the hooks refuse.
 */
export async function responsesHandler(ctx: RouteContext, rawBody: unknown, reply: FastifyReply, hooks: TurnHooks): Promise<unknown> {
  const b = parseBody(responsesSchema, rawBody);
  checkResponsesRequest(b);
  const { renderer } = ctx.opts;
  const tools = responsesTools(b.tools);
  const history = b.previous_response_id ? hooks.responses.get(b.previous_response_id) : [];
  if (!history)
    throw new OpenAIApiError(400, `Previous response with id '${b.previous_response_id}' not found.`, {
      param: 'previous_response_id',
      errorCode: 'previous_response_not_found',
    });
  const conversation = [...history, ...responsesInput(b.input)];
  const messages: Message[] = b.instructions ? [{ role: 'system', content: b.instructions }, ...conversation] : conversation;
  const params = { ...samplingParams({}, b.max_output_tokens ?? ctx.opts.limits?.maxTokens ?? 4096, renderer), signal: clientGone(reply) };
  const ticket = hooks.begin({ messages, tools, n: 1 });
  const { prompt, results } = await sampleTurn(renderer, ticket, params, tools.length > 0 && b.tool_choice !== 'none');
  try {
    const r = results[0]!;
    const { items, assistant } = outputOf(r);
    const response = responseObject(ctx, b, `resp_${hex(32)}`, items, r, prompt.length);
    // kept once the agent has it: a later request may continue it by id (its instructions are not carried over)
    ticket.deliverOn(reply.raw, () => hooks.responses.set(response.id, [...conversation, assistant]));
    if (!b.stream) return response;
    const events = responseEvents(response, items, r, (tokens) => renderer.decode(tokens), params.stop ?? []);
    const sse = new SseWriter(reply);
    for (const [name, data] of events) sse.event(name, data);
    sse.end();
    return reply;
  } catch (e) {
    ticket.release();
    throw e;
  }
}

function responseObject(ctx: RouteContext, b: ResponsesBody, id: string, output: OutputItem[], r: ChoiceResult, promptTokens: number) {
  const incomplete = r.finishReason === 'length';
  const outputTokens = r.seq.tokens.length;
  return {
    id,
    object: 'response' as const,
    created_at: ctx.now(),
    status: incomplete ? ('incomplete' as const) : ('completed' as const),
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' as const } : null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    model: b.model,
    output,
    output_text: output.flatMap((i) => (i.type === 'message' ? i.content.map((c) => c.text) : [])).join(''),
    parallel_tool_calls: true,
    previous_response_id: b.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: promptTokens + outputTokens,
    },
    metadata: {},
  };
}

/**
 * The Responses event stream of a finished response, as OpenAI sends it: `response.created`, `response.in_progress`,
 * per item `output_item.added` … `output_item.done` (a message's text as `output_text.delta`s, token by token when the
 * reply is the decoded text itself; a call's arguments as one `function_call_arguments.delta`), then
 * `response.completed` (or `response.incomplete`). Every event has its `sequence_number`.
 */
function responseEvents(
  response: ReturnType<typeof responseObject>,
  items: OutputItem[],
  r: ChoiceResult,
  decode: (t: readonly number[]) => string,
  stop: readonly number[],
): [string, unknown][] {
  const events: [string, unknown][] = [];
  const push = (type: string, data: Record<string, unknown>) => events.push([type, { type, sequence_number: events.length, ...data }]);
  const pending = { ...response, status: 'in_progress', incomplete_details: null, output: [], output_text: '', usage: null };
  push('response.created', { response: pending });
  push('response.in_progress', { response: pending });
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = item.content[0]!.text;
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      push('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      push('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part });
      for (const delta of textDeltas(text, r, decode, stop))
        push('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
      push('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text, logprobs: [] });
      push('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: { ...part, text } });
    } else {
      push('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      push('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments });
      push('response.function_call_arguments.done', { item_id: item.id, output_index, name: item.name, arguments: item.arguments });
    }
    push('response.output_item.done', { output_index, item });
  });
  push(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return events;
}

/** The text as deltas: token by token when it is the decoded completion itself (held back inside a UTF-8 sequence), else whole. */
export function textDeltas(text: string, r: ChoiceResult, decode: (t: readonly number[]) => string, stop: readonly number[]): string[] {
  if (text === '') return [];
  if (r.message.toolCalls.length > 0 || text !== r.text) return [text];
  const shown = withoutStop(r.seq.tokens, stop);
  const deltas: string[] = [];
  let sent = '';
  for (let i = 0; i < shown.length; i++) {
    const upTo = decode(shown.slice(0, i + 1));
    if (upTo.endsWith('\uFFFD') && i + 1 < shown.length) continue;
    if (upTo.length > sent.length) deltas.push(upTo.slice(sent.length));
    sent = upTo;
  }
  return deltas;
}
