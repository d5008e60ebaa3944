import type { InvalidReason } from '../../types/action.js';
import type { ToolCall } from '../../types/message.js';
import { jsonObjectEnd } from '../json-object-end.js';

/** Index of the first non-whitespace character at or after `i` (`text.length` when none). */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  return i;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A function call with a parsed arguments object (and the family's call id when it has one). */
export function functionCall(name: string, args: Record<string, unknown>, id?: string): ToolCall {
  return { ...(id !== undefined ? { id } : {}), type: 'function', function: { name, arguments: args } };
}

/**
 * A call written as one JSON object `{"name": …, <argsKey>: {…}}` (Hermes / Llama / Mistral list entries).
 * `argsKeys` lists the accepted names of the arguments field, in preference order (Llama writes `parameters`).
 */
export function callFromJsonText(json: string, argsKeys: readonly string[] = ['arguments']): ToolCall | InvalidReason {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.trim());
  } catch {
    return 'bad_tool_json';
  }
  return callFromJsonValue(parsed, argsKeys);
}

/** {@link callFromJsonText} for an already parsed value. */
export function callFromJsonValue(parsed: unknown, argsKeys: readonly string[] = ['arguments']): ToolCall | InvalidReason {
  if (!isPlainObject(parsed) || typeof parsed.name !== 'string' || parsed.name === '') return 'bad_tool_json';
  const key = argsKeys.find((k) => k in parsed);
  if (key === undefined) return 'bad_arguments';
  const args = parsed[key];
  if (!isPlainObject(args)) return 'bad_arguments';
  return functionCall(parsed.name, args);
}

/** Parses the JSON object that starts at `text[start]`: the object and the index after it, or `null`. */
export function jsonObjectAt(text: string, start: number): { value: Record<string, unknown>; end: number } | null {
  const end = jsonObjectEnd(text, start);
  if (end < 0) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start, end));
    return isPlainObject(value) ? { value, end } : null;
  } catch {
    return null;
  }
}

/** Text of the `<think>…</think>` reasoning block(s) in `text`, if any (informational; the text itself is kept). */
export function thinkReasoning(text: string, open = '<think>', close = '</think>'): string | undefined {
  const end = text.indexOf(close);
  if (end < 0) return undefined;
  const start = text.lastIndexOf(open, end);
  return text.slice(start < 0 ? 0 : start + open.length, end).trim();
}
