/**
 * Chat vocabulary shared by every layer: messages, tool calls and tool definitions.
 * Shapes follow the OpenAI / Hugging Face chat-template convention, so the same objects
 * render through any `tokenizer_config.json` chat template.
 */

/** One function call emitted by the assistant. `arguments` is the parsed JSON object. */
export interface ToolCall {
  /** Optional call id (some templates render it; Qwen's does not). */
  readonly id?: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: Record<string, unknown> };
}

/** A system prompt. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}
/** A user turn. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
}
/** An assistant turn; `toolCalls` holds the calls it made (rendered by the template as `tool_calls`). */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
}
/** The result of one tool call, fed back to the model as an observation. */
export interface ToolMessage {
  readonly role: 'tool';
  readonly content: string;
  /** Name of the tool that produced the result. */
  readonly name?: string;
  readonly toolCallId?: string;
}

/** Any chat message, discriminated by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** JSON Schema (draft-07 subset) describing a tool's arguments. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly [key: string]: unknown;
}

/**
 * A tool offered to the model, in the OpenAI function-calling shape that chat templates render
 * (e.g. Qwen's `<tools>` block).
 */
export interface ToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}
