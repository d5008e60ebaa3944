import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';
import { z } from '../../util/zod.js';
import { OpenAIApiError } from '../openai/api-error.js';
import { parseBody } from '../openai/request-schemas.js';

const block = z.looseObject({ type: z.string() });
const content = z.union([z.string(), z.array(block)]);

/** Body of `POST /v1/messages` (Anthropic's Messages API; the fields this server reads, unknown fields ignored). */
export const messagesSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content })),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  tools: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        type: z.string().nullable().optional(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  tool_choice: z.looseObject({ type: z.string() }).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
});
export type MessagesBody = z.infer<typeof messagesSchema>;

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const toolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(block)]).optional(),
  is_error: z.boolean().optional(),
});

const unsupported = (param: string, message: string) => new OpenAIApiError(400, message, { param, errorCode: 'unsupported_parameter' });

function blockText(b: { type: string }, param: string): string {
  return parseBody(textBlock, b, param).text;
}

/**
 * Anthropic messages → agentrl messages: `system` (a string or text blocks) first; a user turn's text blocks are a
 * user message and each `tool_result` block a tool message (named after its `tool_use`, `Error: ` before an
 * `is_error` result), in their order; an assistant turn's text blocks are its content and its `tool_use` blocks its
 * tool calls. Images, documents and thinking blocks are refused.
 * @throws OpenAIApiError 400 naming the block (`messages.<i>.content.<k>`).
 */
export function messagesInput(b: MessagesBody): Message[] {
  const out: Message[] = [];
  const system = typeof b.system === 'string' ? b.system : (b.system ?? []).map((s) => s.text).join('\n');
  if (system !== '') out.push({ role: 'system', content: system });
  const names = new Map<string, string>();
  b.messages.forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'assistant') {
      let text = '';
      const calls: ToolCall[] = [];
      blocks.forEach((blk, k) => {
        const param = `messages.${i}.content.${k}`;
        if (blk.type === 'text') text += blockText(blk, param);
        else if (blk.type === 'tool_use') {
          const u = parseBody(toolUseBlock, blk, param);
          names.set(u.id, u.name);
          calls.push({ type: 'function', id: u.id, function: { name: u.name, arguments: u.input } });
        } else throw unsupported(`${param}.type`, `assistant content block type "${blk.type}" is not supported by this server (text, tool_use)`);
      });
      out.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      return;
    }
    let text: string | undefined;
    const flush = () => {
      if (text !== undefined) out.push({ role: 'user', content: text });
      text = undefined;
    };
    blocks.forEach((blk, k) => {
      const param = `messages.${i}.content.${k}`;
      if (blk.type === 'text') text = (text ?? '') + blockText(blk, param);
      else if (blk.type === 'tool_result') {
        flush();
        const r = parseBody(toolResultBlock, blk, param);
        const body =
          typeof r.content === 'string'
            ? r.content
            : (r.content ?? [])
                .map((c, j) => (c.type === 'text' ? blockText(c, `${param}.content.${j}`) : unsupportedPart(c.type, `${param}.content.${j}`)))
                .join('');
        const name = names.get(r.tool_use_id);
        out.push({ role: 'tool', content: r.is_error ? `Error: ${body}` : body, toolCallId: r.tool_use_id, ...(name !== undefined ? { name } : {}) });
      } else throw unsupported(`${param}.type`, `user content block type "${blk.type}" is not supported by this server (text, tool_result)`);
    });
    flush();
  });
  return out;
}

function unsupportedPart(type: string, param: string): never {
  throw unsupported(`${param}.type`, `tool_result content type "${type}" is not supported by this server (text only)`);
}

/**
 * Anthropic `tools` → tool definitions (custom tools: `name`, `description`, `input_schema`).
 * @throws OpenAIApiError 400 for server tools (a `type` other than `custom`) or a tool without `input_schema`.
 */
export function messagesTools(tools: MessagesBody['tools']): ToolDefinition[] {
  return (tools ?? []).map((t, i) => {
    if ((t.type !== undefined && t.type !== null && t.type !== 'custom') || !t.input_schema)
      throw unsupported(`tools.${i}`, `tool "${t.name}" is not a custom tool with an input_schema (server tools are not supported by this server)`);
    return {
      type: 'function',
      function: { name: t.name, description: t.description ?? '', parameters: t.input_schema as ToolDefinition['function']['parameters'] },
    };
  });
}

/**
 * Refuses what this server cannot honour rather than ignoring it: a forced `tool_choice` (`any`, `tool`),
 * `stop_sequences` (it stops on token ids only) and extended thinking.
 * @throws OpenAIApiError 400 `unsupported_parameter` naming the field.
 */
export function checkMessagesRequest(b: MessagesBody): void {
  const tc = b.tool_choice?.type;
  if (tc !== undefined && tc !== 'auto' && tc !== 'none')
    throw unsupported('tool_choice', 'tool_choice must be "auto" or "none" (this server cannot force a call)');
  if (b.stop_sequences?.length)
    throw unsupported('stop_sequences', "stop_sequences are not supported by this server (it stops on the model's stop tokens only)");
  if (b.thinking && b.thinking.type !== 'disabled') throw unsupported('thinking', 'extended thinking is not supported by this server');
}
