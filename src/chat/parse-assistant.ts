import type { ParsedAction, InvalidReason } from '../types/action.js';
import type { ToolCall, ToolDefinition, JsonSchema } from '../types/message.js';
import type { FamilyId } from './families/types.js';
import { getFamily } from './families/registry.js';
import { isPlainObject } from './families/json-call.js';

export { TOOL_CALL_OPEN, TOOL_CALL_CLOSE } from './families/qwen3.js';

/**
 * How the body of a Qwen3 `<tool_call>` block is written.
 * - `'json'` (default, Qwen native): `{"name": ..., "arguments": {...}}`.
 * - `'code'` (the ReTool recipe's style, KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`): the body is the Python code
 *   itself, sent to `codeToolName`.
 */
export type ToolCallFormat = 'json' | 'code';

/** Options of {@link parseAssistant}. */
export interface ParseAssistantOptions {
  /** Tools the environment offers. A call to a name not listed is `unknown_tool`; omitted = any name. */
  readonly tools?: readonly ToolDefinition[];
  /** The model family whose call syntax the text is in. @default 'qwen3' */
  readonly family?: FamilyId;
  /** Qwen3 `<tool_call>` body format. @default 'json' */
  readonly format?: ToolCallFormat;
  /** Tool that receives raw code (`'code'` format, Llama `<|python_tag|>` code, harmony `python`). @default 'code_interpreter' */
  readonly codeToolName?: string;
  /** Stop-token strings (e.g. `<|im_end|>`) stripped from the end of `text` before parsing. */
  readonly stopStrings?: readonly string[];
  /**
   * Several tool calls in one turn are a valid action (`calls` holds them all, in order). Off, a second call is
   * `multiple_tool_calls` (the ReTool recipe's rule). @default false
   */
  readonly parallelToolCalls?: boolean;
}

/**
 * Parses one assistant completion into `tool | answer | invalid` in the family's own call syntax (see
 * `src/chat/families/` and docs/models.md), strictly and without repairs. For the default `qwen3` family the rules are
 * the ReTool recipe's `parse_assistant`:
 * - no tool tags at all → `answer` (content = trimmed text);
 * - exactly one `<tool_call>…</tool_call>` block (several, separated by whitespace, with `parallelToolCalls`), with
 *   only whitespace after it, non-empty → `tool` (content = trimmed text before the first block);
 * - anything else → `invalid` with a reason: `stray_tool_tag` (a closing tag with no opening one, a closing tag before
 *   the block, an unclosed block), `multiple_tool_calls`, `text_after_tool_call`, `empty_tool_call`, `bad_tool_json`,
 *   `bad_tool_syntax`, `unknown_tool`, `bad_arguments`, `empty_code`.
 *
 * Finding the block end, `'json'` format: the block starts at the first `<tool_call>`; its end is the first
 * `</tool_call>` that follows (after whitespace) the end of a complete JSON object, found by a string-aware scan. So
 * code whose JSON string contains quotes, newlines, `}` or even `</tool_call>` parses correctly. When the body is not a
 * complete JSON object, the first `</tool_call>` after the opening ends the block (and the call is `bad_tool_json`).
 * `'code'` format follows the recipe's non-greedy regex: the first `</tool_call>` ends the block.
 *
 * A `tool` action carries `calls` (every call, in order) and `call` (the first). Each call is checked against `tools`
 * (name offered, required keys present, shallow JSON-schema types). Trailing stop text (`stopStrings`) and whitespace
 * are removed first. `raw` is always the original `text`; `reasoning` is the family's reasoning part when there is one.
 *
 * @throws ConfigError for an unknown `family` (model text never throws).
 */
export function parseAssistant(text: string, opts: ParseAssistantOptions = {}): ParsedAction {
  const raw = text;
  const body = stripStopSuffix(text, opts.stopStrings ?? []);
  const invalid = (reason: InvalidReason): ParsedAction => ({ kind: 'invalid', reason, content: body.trim(), raw });
  const family = getFamily(opts.family ?? 'qwen3');
  const parsed = family.parse(body, {
    parallelToolCalls: opts.parallelToolCalls ?? false,
    format: opts.format ?? 'json',
    codeToolName: opts.codeToolName ?? 'code_interpreter',
    ...(opts.tools ? { tools: opts.tools } : {}),
  });
  if (parsed.kind === 'invalid') return invalid(parsed.reason);
  const reasoning = parsed.reasoning !== undefined ? { reasoning: parsed.reasoning } : {};
  if (parsed.kind === 'answer') return { kind: 'answer', content: parsed.content, raw, ...reasoning };
  const [first] = parsed.calls;
  if (!first) return invalid('empty_tool_call');
  if (parsed.calls.length > 1 && opts.parallelToolCalls !== true) return invalid('multiple_tool_calls');
  for (const call of parsed.calls) {
    const checked = checkAgainstTools(call, opts.tools);
    if (checked) return invalid(checked);
  }
  return { kind: 'tool', content: parsed.content, call: first, calls: parsed.calls, raw, ...reasoning };
}

/** Removes trailing whitespace and stop strings (repeatedly) from `text`. */
function stripStopSuffix(text: string, stopStrings: readonly string[]): string {
  let out = text;
  for (;;) {
    const trimmed = out.trimEnd();
    const stop = stopStrings.find((s) => s.length > 0 && trimmed.endsWith(s));
    if (!stop) return out;
    out = trimmed.slice(0, trimmed.length - stop.length);
  }
}

/** `null` when the call fits the offered tools; otherwise the reason it does not. */
function checkAgainstTools(call: ToolCall, tools: readonly ToolDefinition[] | undefined): InvalidReason | null {
  const args = call.function.arguments;
  if (!tools) return null;
  const tool = tools.find((t) => t.function.name === call.function.name);
  if (!tool) return 'unknown_tool';
  const schema = tool.function.parameters;
  for (const key of schema.required ?? []) {
    if (!(key in args)) return 'bad_arguments';
  }
  for (const [key, value] of Object.entries(args)) {
    const prop = schema.properties?.[key];
    if (prop && !matchesType(value, prop)) return 'bad_arguments';
  }
  return null;
}

/** Shallow JSON-schema `type` check (string, number, integer, boolean, object, array, null). */
function matchesType(value: unknown, schema: JsonSchema): boolean {
  if (schema.type === undefined) return true;
  const types = typeof schema.type === 'string' ? [schema.type] : schema.type;
  return types.some((t) => {
    switch (t) {
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number';
      case 'integer':
        return Number.isInteger(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'object':
        return isPlainObject(value);
      case 'array':
        return Array.isArray(value);
      case 'null':
        return value === null;
      default:
        return true;
    }
  });
}
