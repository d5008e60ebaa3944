/**
 * Chat vocabulary shared by every layer: messages, tool calls and tool definitions.
 * Shapes follow the OpenAI / Hugging Face chat-template convention, so the same objects
 * render through any `tokenizer_config.json` chat template.
 */

/** One function call emitted by the assistant. `arguments` is the parsed JSON object. */
export interface ToolCall {
  /** Optional call id (some templates render it; Qwen's does not). */
  readonly id?: string;
  /** Always `'function'` (the OpenAI tool-call shape). */
  readonly type: 'function';
  /** The called function's name and its arguments, parsed from the model's JSON. */
  readonly function: { readonly name: string; readonly arguments: Record<string, unknown> };
}

/** A system prompt. */
export interface SystemMessage {
  /** Discriminant. */
  readonly role: 'system';
  /** The system prompt text. */
  readonly content: string;
}
/** A user turn. */
export interface UserMessage {
  /** Discriminant. */
  readonly role: 'user';
  /** The user's text (the question, for the first turn). */
  readonly content: string;
}
/** An assistant turn; `toolCalls` holds the calls it made (rendered by the template as `tool_calls`). */
export interface AssistantMessage {
  /** Discriminant. */
  readonly role: 'assistant';
  /** The assistant's text with any tool-call markup removed (the reasoning and the answer). */
  readonly content: string;
  /** The tool calls the assistant made this turn, in order. */
  readonly toolCalls?: readonly ToolCall[];
}
/** The result of one tool call, fed back to the model as an observation. */
export interface ToolMessage {
  /** Discriminant. */
  readonly role: 'tool';
  /** The tool's output as the model reads it (already cut to the tool-response budget). */
  readonly content: string;
  /** Name of the tool that produced the result. */
  readonly name?: string;
  /** Id of the {@link ToolCall} this message answers, when the call had one. */
  readonly toolCallId?: string;
}

/** Any chat message, discriminated by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** JSON Schema (draft-07 subset) describing a tool's arguments. */
export interface JsonSchema {
  /** JSON type name(s), e.g. `'object'`, `'integer'`, `['string', 'null']`. */
  readonly type?: string | readonly string[];
  /** What the value means, in words the model reads. */
  readonly description?: string;
  /** Schemas of an object's properties, by name. */
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  /** Names of the properties that must be present. */
  readonly required?: readonly string[];
  /** Schema of an array's items. */
  readonly items?: JsonSchema;
  /** The values allowed. */
  readonly enum?: readonly unknown[];
  /** Any other JSON Schema keyword (`minimum`, `pattern`, …), passed to the chat template unchanged. */
  readonly [key: string]: unknown;
}

/**
 * A tool offered to the model, in the OpenAI function-calling shape that chat templates render
 * (e.g. Qwen's `<tools>` block).
 */
export interface ToolDefinition {
  /** Always `'function'` (the OpenAI function-calling shape). */
  readonly type: 'function';
  /** The function's name, its description and its JSON Schema `parameters`. */
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}
