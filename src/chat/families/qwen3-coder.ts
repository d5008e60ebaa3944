import type { InvalidReason } from '../../types/action.js';
import type { JsonSchema, ToolCall, ToolDefinition } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { findToolCallBlocks, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './qwen3.js';
import { functionCall, skipSpace, thinkReasoning } from './json-call.js';

const FUNCTION_OPEN = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';

/** A parsed XML block: the call's name, its raw parameter strings, and where the block (`</tool_call>`) ends. */
interface XmlCall {
  readonly name: string;
  readonly params: [string, string][];
  readonly end: number;
}

/**
 * Reads `<function=NAME>(<parameter=KEY>value</parameter>)*</function>` after the opening tag at `open`, then
 * whitespace and `</tool_call>`. Values end at the first `</parameter>` (the format cannot quote it); a value may
 * contain `</function>`, `<tool_call>` or `</tool_call>`. `null` when the structure is broken.
 */
function readXmlBlock(text: string, open: number): XmlCall | null {
  let i = skipSpace(text, open + TOOL_CALL_OPEN.length);
  if (!text.startsWith(FUNCTION_OPEN, i)) return null;
  const nameEnd = text.indexOf('>', i + FUNCTION_OPEN.length);
  if (nameEnd < 0) return null;
  const name = text.slice(i + FUNCTION_OPEN.length, nameEnd).trim();
  if (name === '' || /[\s<]/.test(name)) return null;
  i = nameEnd + 1;
  const params: [string, string][] = [];
  for (;;) {
    i = skipSpace(text, i);
    if (text.startsWith(FUNCTION_CLOSE, i)) {
      i += FUNCTION_CLOSE.length;
      break;
    }
    if (!text.startsWith(PARAM_OPEN, i)) return null;
    const keyEnd = text.indexOf('>', i + PARAM_OPEN.length);
    if (keyEnd < 0) return null;
    const key = text.slice(i + PARAM_OPEN.length, keyEnd).trim();
    if (key === '' || /[\s<]/.test(key) || params.some(([k]) => k === key)) return null;
    const valueEnd = text.indexOf(PARAM_CLOSE, keyEnd + 1);
    if (valueEnd < 0) return null;
    params.push([key, stripOneNewline(text.slice(keyEnd + 1, valueEnd))]);
    i = valueEnd + PARAM_CLOSE.length;
  }
  i = skipSpace(text, i);
  if (!text.startsWith(TOOL_CALL_CLOSE, i)) return null;
  return { name, params, end: i + TOOL_CALL_CLOSE.length };
}

/** The template writes `\n` + value + `\n`; one newline on each side is removed, as vLLM's `qwen3_coder` parser does. */
function stripOneNewline(v: string): string {
  let out = v.startsWith('\n') ? v.slice(1) : v;
  if (out.endsWith('\n')) out = out.slice(0, -1);
  return out;
}

/**
 * Converts a raw parameter string with the tool's schema type, as vLLM's `qwen3_coder` parser does: `string` (and
 * unknown parameters) stay text; `integer` / `number` / `boolean` / `null` parse their literal; `object` / `array` (or
 * any other declared type) parse as JSON. A value that does not parse stays text, so the schema check then rejects it
 * (`bad_arguments`) — never repaired.
 */
function convertParam(raw: string, schema: JsonSchema | undefined): unknown {
  if (!schema || schema.type === undefined) return raw;
  const types = typeof schema.type === 'string' ? [schema.type] : [...schema.type];
  if (types.includes('string')) return raw;
  const t = raw.trim();
  if (t === 'null' && types.includes('null')) return null;
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (types.includes('boolean') && /^(true|false)$/i.test(t)) return t.toLowerCase() === 'true';
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return raw;
  }
}

function toCall(x: XmlCall, tools: readonly ToolDefinition[] | undefined): ToolCall {
  const props = tools?.find((t) => t.function.name === x.name)?.function.parameters.properties;
  const args: Record<string, unknown> = {};
  for (const [k, v] of x.params) args[k] = convertParam(v, props?.[k]);
  return functionCall(x.name, args);
}

/**
 * Qwen3-Coder / Qwen3.5: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nvalue\n</parameter>\n</function>\n</tool_call>`
 * blocks at the end of the turn (several with `parallelToolCalls`), with the same block rules as the Hermes form. A
 * block that is not that structure is `bad_tool_syntax`.
 */
export function parseQwen3Xml(text: string, opts: FamilyParseOptions): FamilyParse {
  const reasoning = thinkReasoning(text);
  const withReasoning = reasoning !== undefined ? { reasoning } : {};
  const parsed = new Map<number, XmlCall>();
  const found = findToolCallBlocks(text, opts, (open) => {
    const x = readXmlBlock(text, open);
    if (!x) return null;
    parsed.set(open, x);
    return { inner: text.slice(open + TOOL_CALL_OPEN.length, x.end - TOOL_CALL_CLOSE.length), end: x.end };
  });
  if (typeof found === 'string') return { kind: 'invalid', reason: found };
  if (found.first < 0) return { kind: 'answer', content: text.trim(), ...withReasoning };
  const calls: ToolCall[] = [];
  for (const b of found.blocks) {
    const open = b.end - TOOL_CALL_CLOSE.length - b.inner.length - TOOL_CALL_OPEN.length;
    const x = parsed.get(open);
    if (!x) return { kind: 'invalid', reason: 'bad_tool_syntax' satisfies InvalidReason };
    calls.push(toCall(x, opts.tools));
  }
  return { kind: 'calls', content: text.slice(0, found.first).trim(), calls, ...withReasoning };
}

/** Qwen3-Coder / Qwen3.5 (XML tool calls); detected by the template's `<function=` / `<parameter=` markers. */
export const qwen3CoderFamily: ModelFamily = {
  id: 'qwen3_coder',
  label: 'Qwen3-Coder / Qwen3.5 (XML tool calls)',
  detect: (f) => f.modelType === 'qwen3_5' || ((f.chatTemplate?.includes('<function=') ?? false) && (f.chatTemplate?.includes('<parameter=') ?? false)),
  parse: parseQwen3Xml,
  stopStrings: ['<|im_end|>'],
};
