import type { ParsedAction, InvalidReason } from '../types/action.js';
import type { ToolCall, ToolDefinition, JsonSchema } from '../types/message.js';
import { jsonObjectEnd } from './json-object-end.js';

/** Opening tag of a tool-call block (Qwen / Hermes convention). */
export const TOOL_CALL_OPEN = '<tool_call>';
/** Closing tag of a tool-call block. */
export const TOOL_CALL_CLOSE = '</tool_call>';

/**
 * How the body of a `<tool_call>` block is written.
 * - `'json'` (default, Qwen native): `{"name": ..., "arguments": {...}}`.
 * - `'code'` (ReTool seed style): the body is the Python code itself, sent to `codeToolName`.
 */
export type ToolCallFormat = 'json' | 'code';

/** Options of {@link parseAssistant}. */
export interface ParseAssistantOptions {
  /** Tools the environment offers. A call to a name not listed is `unknown_tool`; omitted = any name. */
  readonly tools?: readonly ToolDefinition[];
  /** @default 'json' */
  readonly format?: ToolCallFormat;
  /** Tool that receives the body in `'code'` format. @default 'code_interpreter' */
  readonly codeToolName?: string;
  /** Stop-token strings (e.g. `<|im_end|>`) stripped from the end of `text` before parsing. */
  readonly stopStrings?: readonly string[];
}

/**
 * Parses one assistant completion into `tool | answer | invalid` with the ReTool seed's
 * `parse_assistant` rules, strictly and without repairs:
 * - no tool tags at all → `answer` (content = trimmed text);
 * - exactly one `<tool_call>…</tool_call>` block, with only whitespace after it, non-empty → `tool`
 *   (content = trimmed text before the block);
 * - anything else → `invalid` with a reason: `stray_tool_tag` (a closing tag with no opening one, a
 *   closing tag before the block, an unclosed block), `multiple_tool_calls`, `text_after_tool_call`,
 *   `empty_tool_call`, `bad_tool_json`, `unknown_tool`, `bad_arguments`, `empty_code`.
 *
 * Finding the block end, `'json'` format: the block starts at the first `<tool_call>`; its end is the
 * first `</tool_call>` that follows (after whitespace) the end of a complete JSON object, found by a
 * string-aware scan. So code whose JSON string contains quotes, newlines, `}` or even `</tool_call>`
 * parses correctly. When the body is not a complete JSON object, the first `</tool_call>` after the
 * opening ends the block (and the call is `bad_tool_json`). `'code'` format follows the seed's
 * non-greedy regex: the first `</tool_call>` ends the block, so code containing that literal is invalid.
 *
 * Trailing stop text (`stopStrings`, e.g. `<|im_end|>`) and whitespace are removed first.
 * `raw` is always the original `text`.
 */
export function parseAssistant(text: string, opts: ParseAssistantOptions = {}): ParsedAction {
  const raw = text;
  const body = stripStopSuffix(text, opts.stopStrings ?? []);
  const invalid = (reason: InvalidReason): ParsedAction => ({ kind: 'invalid', reason, content: body.trim(), raw });

  const open = body.indexOf(TOOL_CALL_OPEN);
  const firstClose = body.indexOf(TOOL_CALL_CLOSE);
  if (open < 0) return firstClose < 0 ? { kind: 'answer', content: body.trim(), raw } : invalid('stray_tool_tag');
  if (firstClose >= 0 && firstClose < open) return invalid('stray_tool_tag');

  const bodyStart = open + TOOL_CALL_OPEN.length;
  const format = opts.format ?? 'json';
  const located = format === 'json' ? locateJsonBlock(body, bodyStart) : null;
  let inner: string;
  let blockEnd: number;
  if (located) {
    inner = body.slice(bodyStart, located.innerEnd);
    blockEnd = located.blockEnd;
  } else {
    const close = body.indexOf(TOOL_CALL_CLOSE, bodyStart);
    if (close < 0) return invalid(body.indexOf(TOOL_CALL_OPEN, bodyStart) >= 0 ? 'multiple_tool_calls' : 'stray_tool_tag');
    inner = body.slice(bodyStart, close);
    blockEnd = close + TOOL_CALL_CLOSE.length;
    if (inner.includes(TOOL_CALL_OPEN)) return invalid('multiple_tool_calls');
  }

  const rest = body.slice(blockEnd);
  if (rest.includes(TOOL_CALL_OPEN)) return invalid('multiple_tool_calls');
  if (rest.includes(TOOL_CALL_CLOSE)) return invalid('stray_tool_tag');
  if (rest.trim() !== '') return invalid('text_after_tool_call');
  if (inner.trim() === '') return invalid('empty_tool_call');

  const content = body.slice(0, open).trim();
  const call = format === 'json' ? callFromJson(inner) : callFromCode(inner, opts.codeToolName ?? 'code_interpreter');
  if (typeof call === 'string') return invalid(call);
  const checked = checkAgainstTools(call, opts.tools);
  if (checked) return invalid(checked);
  return { kind: 'tool', content, call, raw };
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

/** The JSON object after `bodyStart` and the `</tool_call>` right after it, if both are there. */
function locateJsonBlock(text: string, bodyStart: number): { innerEnd: number; blockEnd: number } | null {
  let i = bodyStart;
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  const end = jsonObjectEnd(text, i);
  if (end < 0) return null;
  let j = end;
  while (j < text.length && /\s/.test(text[j] ?? '')) j++;
  if (!text.startsWith(TOOL_CALL_CLOSE, j)) return null;
  return { innerEnd: end, blockEnd: j + TOOL_CALL_CLOSE.length };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function callFromJson(inner: string): ToolCall | InvalidReason {
  let parsed: unknown;
  try {
    parsed = JSON.parse(inner.trim());
  } catch {
    return 'bad_tool_json';
  }
  if (!isPlainObject(parsed) || typeof parsed.name !== 'string' || parsed.name === '') return 'bad_tool_json';
  if (!('arguments' in parsed)) return 'bad_arguments';
  const args = parsed.arguments;
  if (!isPlainObject(args)) return 'bad_arguments';
  return { type: 'function', function: { name: parsed.name, arguments: args } };
}

function callFromCode(inner: string, toolName: string): ToolCall | InvalidReason {
  const code = inner.trim();
  if (code === '') return 'empty_code';
  return { type: 'function', function: { name: toolName, arguments: { code } } };
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
      case 'string': return typeof value === 'string';
      case 'number': return typeof value === 'number';
      case 'integer': return Number.isInteger(value);
      case 'boolean': return typeof value === 'boolean';
      case 'object': return isPlainObject(value);
      case 'array': return Array.isArray(value);
      case 'null': return value === null;
      default: return true;
    }
  });
}
