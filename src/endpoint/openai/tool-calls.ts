import { parseAssistant } from '../../chat/parse-assistant.js';
import type { ParsedAction } from '../../types/action.js';

/** One call parsed from a completion: the tool name, its arguments as a JSON string (OpenAI's shape), the family's id if any. */
export interface ExtractedToolCall {
  readonly name: string;
  readonly arguments: string;
  /** The call id the model wrote (Kimi K2 `functions.NAME:IDX`, Mistral `[CALL_ID]`); the server makes one otherwise. */
  readonly id?: string;
}

/** An assistant completion split into OpenAI's `content` and `tool_calls`. */
export interface ExtractedMessage {
  /** Text before the first call, trimmed; `null` when empty and there are calls. The whole text when there are none. */
  readonly content: string | null;
  readonly toolCalls: readonly ExtractedToolCall[];
}

/**
 * Splits an assistant completion (stop token already removed) into text and tool calls with the model family's own
 * parser (`parse`, normally `renderer.parseAssistant(text, undefined, { parallelToolCalls: true })`; the default is the
 * Qwen3 / Hermes `<tool_call>` parser), as vLLM's tool parsers do: every call must be well formed, several calls are
 * allowed, and the offered tools are not checked (the client does). When the completion is malformed the whole text is
 * returned as `content` with no calls (the client sees what the model wrote). A harmony (GPT-OSS) answer's content is
 * its `final` channel; other families' answers are the text as written.
 */
export function extractToolCalls(
  text: string,
  parse: (text: string) => ParsedAction = (t) => parseAssistant(t, { parallelToolCalls: true }),
): ExtractedMessage {
  const parsed = parse(text);
  if (parsed.kind === 'answer') return { content: text.includes('<|channel|>') ? parsed.content : text, toolCalls: [] };
  if (parsed.kind === 'invalid') return { content: text, toolCalls: [] };
  return {
    content: parsed.content === '' ? null : parsed.content,
    toolCalls: parsed.calls.map((c) => ({
      name: c.function.name,
      arguments: JSON.stringify(c.function.arguments),
      ...(c.id !== undefined ? { id: c.id } : {}),
    })),
  };
}
