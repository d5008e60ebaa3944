import type { Message, ToolCall, ToolDefinition } from '../../types/message.js';
import { OpenAIApiError } from './api-error.js';
import type { ChatBody, ChatMessageBody } from './request-schemas.js';

function text(content: ChatMessageBody['content']): string {
  if (content === undefined || content === null) return '';
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

function toolCall(c: { id?: string | undefined; function: { name: string; arguments: string } }, where: string): ToolCall {
  let args: unknown;
  try {
    args = JSON.parse(c.function.arguments);
  } catch {
    throw new OpenAIApiError(400, `${where}.function.arguments is not valid JSON`, { param: `${where}.function.arguments`, errorCode: 'invalid_value' });
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new OpenAIApiError(400, `${where}.function.arguments must be a JSON object`, { param: `${where}.function.arguments`, errorCode: 'invalid_value' });
  }
  return { type: 'function', ...(c.id !== undefined ? { id: c.id } : {}), function: { name: c.function.name, arguments: args as Record<string, unknown> } };
}

/**
 * OpenAI chat messages → agentrl messages for the chat template: `developer` is a system message, text parts are
 * joined, an assistant's `tool_calls[].function.arguments` (a JSON string) becomes the object the template renders,
 * `tool_call_id` → `toolCallId`.
 * @throws OpenAIApiError 400 when tool-call arguments are not a JSON object.
 */
export function toMessages(messages: ChatBody['messages']): Message[] {
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every role (TypeScript checks it is exhaustive)
  return messages.map((m, i): Message => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: text(m.content) };
      case 'user':
        return { role: 'user', content: text(m.content) };
      case 'assistant': {
        const calls = (m.tool_calls ?? []).map((c, k) => toolCall(c, `messages.${i}.tool_calls.${k}`));
        return { role: 'assistant', content: text(m.content), ...(calls.length > 0 ? { toolCalls: calls } : {}) };
      }
      case 'tool':
        return {
          role: 'tool',
          content: text(m.content),
          ...(m.name !== undefined ? { name: m.name } : {}),
          ...(m.tool_call_id !== undefined ? { toolCallId: m.tool_call_id } : {}),
        };
    }
  });
}

/** OpenAI `tools` → tool definitions for the chat template (missing description `''`, missing parameters an empty object schema). */
export function toToolDefinitions(tools: ChatBody['tools']): ToolDefinition[] {
  return (tools ?? []).map((t) => ({
    type: 'function',
    function: {
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: (t.function.parameters as ToolDefinition['function']['parameters'] | undefined) ?? { type: 'object', properties: {} },
    },
  }));
}
