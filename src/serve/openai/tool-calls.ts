import { jsonObjectEnd } from '../../chat/json-object-end.js';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../../chat/parse-assistant.js';

/** One call parsed from a `<tool_call>` block: the tool name and its arguments as a JSON string (OpenAI's shape). */
export interface ExtractedToolCall {
  readonly name: string;
  readonly arguments: string;
}

/** An assistant completion split into OpenAI's `content` and `tool_calls`. */
export interface ExtractedMessage {
  /** Text before the first block, trimmed; `null` when empty and there are calls. The whole text when there are none. */
  readonly content: string | null;
  readonly toolCalls: readonly ExtractedToolCall[];
}

/**
 * Splits an assistant completion (stop token already removed) into text and the model's `<tool_call>{"name", "arguments"}</tool_call>`
 * blocks (Qwen / Hermes convention), as vLLM's Hermes tool parser does: every block must hold a JSON object with a
 * string `name` and object `arguments`, and only whitespace may sit between and after blocks. When any block is
 * malformed the whole completion is returned as `content` with no calls (the client sees what the model wrote).
 */
export function extractToolCalls(text: string): ExtractedMessage {
  const first = text.indexOf(TOOL_CALL_OPEN);
  if (first < 0) return { content: text, toolCalls: [] };
  const calls: ExtractedToolCall[] = [];
  let i = first;
  while (i < text.length) {
    if (!text.startsWith(TOOL_CALL_OPEN, i)) return { content: text, toolCalls: [] };
    let j = i + TOOL_CALL_OPEN.length;
    while (/\s/.test(text[j] ?? '')) j++;
    const end = jsonObjectEnd(text, j);
    if (end < 0) return { content: text, toolCalls: [] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.slice(j, end));
    } catch {
      return { content: text, toolCalls: [] };
    }
    const p = parsed as { name?: unknown; arguments?: unknown };
    const args = p.arguments ?? {};
    if (typeof p.name !== 'string' || p.name === '' || typeof args !== 'object' || args === null || Array.isArray(args)) return { content: text, toolCalls: [] };
    calls.push({ name: p.name, arguments: JSON.stringify(args) });
    let k = end;
    while (/\s/.test(text[k] ?? '')) k++;
    if (!text.startsWith(TOOL_CALL_CLOSE, k)) return { content: text, toolCalls: [] };
    i = k + TOOL_CALL_CLOSE.length;
    while (/\s/.test(text[i] ?? '')) i++;
  }
  const content = text.slice(0, first).trim();
  return { content: content === '' ? null : content, toolCalls: calls };
}
