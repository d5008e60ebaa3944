import type { ToolCall } from './message.js';

/**
 * Why an assistant turn was judged malformed. Model mistakes are values, never exceptions.
 * - `stray_tool_tag`: a `<tool_call>` or `</tool_call>` tag outside one well-formed block.
 * - `multiple_tool_calls`: more than one block.
 * - `text_after_tool_call`: non-whitespace text after the block.
 * - `empty_tool_call` / `empty_code`: nothing inside the block, or an empty `code` argument.
 * - `bad_tool_json`: the block is not valid JSON of the form `{"name", "arguments"}`.
 * - `bad_tool_syntax`: the family's call structure is broken (XML tags of Qwen3-Coder, DeepSeek / Kimi markers,
 *   harmony headers, Mistral `[ARGS]`).
 * - `unknown_tool`: the named tool is not offered by the environment.
 * - `bad_arguments`: the arguments do not match the tool's schema.
 * - `truncated`: generation hit its token limit before a stop token.
 */
export type InvalidReason =
  | 'stray_tool_tag'
  | 'multiple_tool_calls'
  | 'text_after_tool_call'
  | 'empty_tool_call'
  | 'empty_code'
  | 'bad_tool_json'
  | 'bad_tool_syntax'
  | 'unknown_tool'
  | 'bad_arguments'
  | 'truncated';

/**
 * An assistant completion parsed into one of three paths (the ReTool recipe's `parse_assistant`, KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`):
 * `tool` goes to the environment, `answer` ends the trajectory and is scored,
 * `invalid` ends the trajectory and is scored as wrong.
 * A `tool` action carries every call of the turn in `calls` (in order; one unless the environment allows parallel
 * tool calls) and the first in `call`. `reasoning` is the family's reasoning part (`<think>`, harmony `analysis`) when
 * the completion has one; it is never part of a call's arguments.
 */
export type ParsedAction =
  | {
      readonly kind: 'tool';
      readonly content: string;
      readonly call: ToolCall;
      readonly calls: readonly ToolCall[];
      readonly raw: string;
      readonly reasoning?: string;
    }
  | { readonly kind: 'answer'; readonly content: string; readonly raw: string; readonly reasoning?: string }
  | { readonly kind: 'invalid'; readonly reason: InvalidReason; readonly content: string; readonly raw: string };
