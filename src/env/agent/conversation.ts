import type { Message, ToolCall } from '../../types/message.js';
import type { ParsedAction } from '../../types/action.js';
import type { ExtractedMessage } from '../../endpoint/openai/tool-calls.js';

/** JSON with object keys sorted, so two equal argument objects compare equal whatever their key order. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * A message as compared when matching a request to an earlier call: role, content and tool calls (name and
 * arguments); call ids and tool names are left out (clients rewrite them freely).
 */
export function messageKey(m: Message): string {
  const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => [c.function.name, stableJson(c.function.arguments)]) : [];
  return stableJson([m.role, m.content.trim(), calls]);
}

/** The assistant message a client receives for a completion (as it will send it back in its next request). */
export function assistantMessage(extracted: ExtractedMessage): Message {
  const toolCalls: ToolCall[] = extracted.toolCalls.map((c) => ({
    type: 'function',
    function: { name: c.name, arguments: JSON.parse(c.arguments) as Record<string, unknown> },
  }));
  return { role: 'assistant', content: extracted.content ?? '', ...(toolCalls.length ? { toolCalls } : {}) };
}

/**
 * The turn's action as the trainer counts it: `tool` (`call` the first call, `calls` all of them in order) when
 * the completion made calls, else `answer`.
 */
export function recordedAction(text: string, extracted: ExtractedMessage, assistant: Message): ParsedAction {
  const calls = assistant.role === 'assistant' ? (assistant.toolCalls ?? []) : [];
  const call = calls[0];
  return call ? { kind: 'tool', content: extracted.content ?? '', call, calls, raw: text } : { kind: 'answer', content: text, raw: text };
}

/** True when `prefix` followed by `assistant` opens `messages` (compared by {@link messageKey}). */
export function continues(messages: readonly string[], prefix: readonly string[], assistant: string): boolean {
  if (messages.length < prefix.length + 1) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return messages[prefix.length] === assistant;
}
