import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';
import { z } from '../../util/zod.js';
import { OpenAIApiError } from './api-error.js';
import { parseBody } from './request-schemas.js';

const part = z.looseObject({ type: z.string(), text: z.string().optional() });
const textContent = z.union([z.string(), z.array(part)]);

/** Body of `POST /v1/responses` (the fields this server reads; unknown fields are ignored as OpenAI-compatible servers do). */
export const responsesSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({ type: z.string().optional() }))]),
  instructions: z.string().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        name: z.string().optional(),
        description: z.string().nullable().optional(),
        parameters: z.record(z.string(), z.unknown()).nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  tool_choice: z.unknown().optional(),
  max_output_tokens: z.number().int().min(1).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  text: z
    .looseObject({ format: z.looseObject({ type: z.string() }).nullable().optional() })
    .nullable()
    .optional(),
  conversation: z.unknown().optional(),
  background: z.boolean().nullable().optional(),
});
export type ResponsesBody = z.infer<typeof responsesSchema>;

const messageItem = z.looseObject({ type: z.literal('message').optional(), role: z.enum(['user', 'system', 'developer', 'assistant']), content: textContent });
const functionCallItem = z.looseObject({ type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() });
const functionCallOutputItem = z.looseObject({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: textContent });

const unsupported = (param: string, message: string) => new OpenAIApiError(400, message, { param, errorCode: 'unsupported_parameter' });

function text(content: z.infer<typeof textContent>, param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((p, k) => {
      if ((p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string') return p.text;
      throw unsupported(`${param}.${k}.type`, `content part type "${p.type}" is not supported by this server (text only)`);
    })
    .join('');
}

function args(raw: string, param: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new OpenAIApiError(400, `${param} is not valid JSON`, { param, errorCode: 'invalid_value' });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new OpenAIApiError(400, `${param} must be a JSON object`, { param, errorCode: 'invalid_value' });
  return v as Record<string, unknown>;
}

/**
 * Responses API `input` → agentrl messages: a string is one user message; message items keep their role (`developer`
 * is a system message); an assistant message item and the `function_call` items after it are one assistant message
 * with those tool calls; each `function_call_output` is a tool message (named after its call). `reasoning` items are
 * skipped (this server never sends any). Any other item type, or a non-text content part, is refused.
 * @throws OpenAIApiError 400 naming the item (`input.<i>`).
 */
export function responsesInput(input: ResponsesBody['input']): Message[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const out: Message[] = [];
  const names = new Map<string, string>();
  let open: { content: string; calls: ToolCall[] } | undefined; // the assistant message being assembled
  const flush = () => {
    if (open) out.push({ role: 'assistant', content: open.content, ...(open.calls.length ? { toolCalls: open.calls } : {}) });
    open = undefined;
  };
  input.forEach((item, i) => {
    const param = `input.${i}`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const m = parseBody(messageItem, item, param);
      const content = text(m.content, `${param}.content`);
      if (m.role === 'assistant') {
        // a second assistant text after calls starts a new assistant message
        if (open?.calls.length) flush();
        open = open ? { content: open.content + content, calls: open.calls } : { content, calls: [] };
        return;
      }
      flush();
      out.push({ role: m.role === 'developer' ? 'system' : m.role, content });
    } else if (type === 'function_call') {
      const c = parseBody(functionCallItem, item, param);
      names.set(c.call_id, c.name);
      open ??= { content: '', calls: [] };
      open.calls.push({ type: 'function', id: c.call_id, function: { name: c.name, arguments: args(c.arguments, `${param}.arguments`) } });
    } else if (type === 'function_call_output') {
      flush();
      const o = parseBody(functionCallOutputItem, item, param);
      const name = names.get(o.call_id);
      out.push({ role: 'tool', content: text(o.output, `${param}.output`), toolCallId: o.call_id, ...(name !== undefined ? { name } : {}) });
    } else if (type !== 'reasoning') {
      throw unsupported(`${param}.type`, `input item type "${type}" is not supported by this server (message, function_call, function_call_output)`);
    }
  });
  flush();
  return out;
}

/**
 * Responses API `tools` → tool definitions: function tools only (`{ type: 'function', name, description, parameters }`).
 * @throws OpenAIApiError 400 for any other tool type (hosted tools run on OpenAI's side; none exists here).
 */
export function responsesTools(tools: ResponsesBody['tools']): ToolDefinition[] {
  return (tools ?? []).map((t, i) => {
    if (t.type !== 'function' || !t.name) throw unsupported(`tools.${i}.type`, `tool type "${t.type}" is not supported by this server (function tools only)`);
    return {
      type: 'function',
      function: {
        name: t.name,
        description: t.description ?? '',
        parameters: (t.parameters as ToolDefinition['function']['parameters'] | null | undefined) ?? { type: 'object', properties: {} },
      },
    };
  });
}

/**
 * Refuses what this server cannot honour, rather than ignoring it: a forced `tool_choice`, a structured `text.format`,
 * `conversation` objects and `background` mode.
 * @throws OpenAIApiError 400 `unsupported_parameter` naming the field.
 */
export function checkResponsesRequest(b: ResponsesBody): void {
  const tc = b.tool_choice;
  if (tc !== undefined && tc !== null && tc !== 'auto' && tc !== 'none')
    throw unsupported('tool_choice', 'tool_choice must be "auto" or "none" (this server cannot force a call)');
  const format = b.text?.format?.type;
  if (format !== undefined && format !== 'text') throw unsupported('text.format', `text.format "${format}" is not supported by this server (text only)`);
  if (b.conversation !== undefined && b.conversation !== null)
    throw unsupported('conversation', 'conversations are not supported by this server; use previous_response_id');
  if (b.background) throw unsupported('background', 'background mode is not supported by this server');
}
