import type { Message } from '../types/message.js';
import { sanitizeToolContent } from './sanitize.js';
import { pyJsonDumps } from './families/py-json.js';
import { ChatTemplateError } from '../errors/chat-template-error.js';

/** A message in the shape Hugging Face chat templates read (`tool_calls`, `tool_call_id`, snake_case). */
export type TemplateMessage = Record<string, unknown>;

/**
 * Converts agentrl messages to the dictionaries chat templates expect:
 * - `toolCalls` → `tool_calls: [{ type: 'function', id?, function: { name, arguments } }]` with
 *   `arguments` kept as an object (the Qwen3 template serialises it with `tojson`);
 * - `toolCallId` → `tool_call_id`;
 * - assistant `content` is never null/undefined (it is `''`), since templates crash on null;
 * - tool `content`, `name` and `tool_call_id` go through {@link sanitizeToolContent} with `specialTokens`, so tool
 *   output can never become control tokens.
 * Absent optional fields are omitted (not set to `undefined`), so `is defined` tests in templates work.
 *
 * @param messages - agentrl messages, in order.
 * @param specialTokens - token strings to defuse inside tool output.
 * @param opts - `argumentsAsJsonString`: write `arguments` as Python-style JSON text, for templates that concatenate
 *   it (DeepSeek V3); such templates also test `content is none` on a call turn, so a call turn's empty content is
 *   `null` there.
 */
export function toTemplateMessages(
  messages: readonly Message[],
  specialTokens: readonly string[],
  opts: { readonly argumentsAsJsonString?: boolean } = {},
): TemplateMessage[] {
  return messages.map((m): TemplateMessage => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant': {
        const calling = m.toolCalls !== undefined && m.toolCalls.length > 0;
        const out: TemplateMessage = {
          role: 'assistant',
          content: opts.argumentsAsJsonString === true && calling && (m.content ?? '') === '' ? null : (m.content ?? ''),
        };
        if (m.toolCalls && m.toolCalls.length > 0) {
          out.tool_calls = m.toolCalls.map((c) => ({
            type: 'function',
            ...(c.id !== undefined ? { id: c.id } : {}),
            function: { name: c.function.name, arguments: opts.argumentsAsJsonString === true ? pyJsonDumps(c.function.arguments) : c.function.arguments },
          }));
        }
        return out;
      }
      case 'tool': {
        const out: TemplateMessage = { role: 'tool', content: sanitizeToolContent(m.content, specialTokens) };
        if (m.name !== undefined) out.name = sanitizeToolContent(m.name, specialTokens);
        if (m.toolCallId !== undefined) out.tool_call_id = sanitizeToolContent(m.toolCallId, specialTokens);
        return out;
      }
      default:
        return assertNever(m);
    }
  });
}

/** A message whose role the types ruled out (a JavaScript caller): the messages are wrong, not agentrl. */
function assertNever(x: never): never {
  throw new ChatTemplateError(`unknown message role: ${JSON.stringify(x)}`);
}
