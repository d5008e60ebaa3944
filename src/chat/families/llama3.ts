import type { ToolCall } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { callFromJsonValue, functionCall, jsonObjectAt, skipSpace } from './json-call.js';
import { llama3CodeTemplate } from './llama3-template.js';

/** Llama 3.1's marker of a tool call (built-in code, or JSON). */
export const PYTHON_TAG = '<|python_tag|>';

/**
 * Llama 3.1–3.3, following vLLM's `llama3_json` parser: a turn is a tool call when it starts (after whitespace) with
 * `{` or with `<|python_tag|>`; otherwise it is an answer. A JSON call is `{"name": …, "parameters": {…}}` (`arguments`
 * accepted too); with `parallelToolCalls`, several objects are separated by `;`. After `<|python_tag|>`, text that is
 * not a JSON object is built-in code for the code tool (`codeToolName`, the `ipython` environment). A
 * `<|python_tag|>` later in the text is `stray_tool_tag`; text after the call(s) is `text_after_tool_call`.
 */
export function parseLlama3(text: string, opts: FamilyParseOptions): FamilyParse {
  let i = skipSpace(text, 0);
  const tagged = text.startsWith(PYTHON_TAG, i);
  if (tagged) i = skipSpace(text, i + PYTHON_TAG.length);
  if (!tagged && text[i] !== '{') return text.includes(PYTHON_TAG) ? { kind: 'invalid', reason: 'stray_tool_tag' } : { kind: 'answer', content: text.trim() };
  if (tagged && text[i] !== '{') {
    const code = text.slice(i).trim();
    if (code === '') return { kind: 'invalid', reason: 'empty_tool_call' };
    return { kind: 'calls', content: '', calls: [functionCall(opts.codeToolName, { code })] };
  }
  const calls: ToolCall[] = [];
  for (;;) {
    const obj = jsonObjectAt(text, i);
    if (!obj) return { kind: 'invalid', reason: 'bad_tool_json' };
    const call = callFromJsonValue(obj.value, ['parameters', 'arguments']);
    if (typeof call === 'string') return { kind: 'invalid', reason: call };
    calls.push(call);
    i = skipSpace(text, obj.end);
    if (i >= text.length) break;
    if (text[i] !== ';') return { kind: 'invalid', reason: 'text_after_tool_call' };
    if (!opts.parallelToolCalls) return { kind: 'invalid', reason: 'multiple_tool_calls' };
    i = skipSpace(text, i + 1);
    if (text[i] !== '{') return { kind: 'invalid', reason: 'text_after_tool_call' };
  }
  return { kind: 'calls', content: '', calls };
}

/** Llama 3.1–3.3 (also 3.2 / 3.3 text models): `model_type` `llama` with the `<|eot_id|>` vocabulary. */
export const llama3Family: ModelFamily = {
  id: 'llama3',
  label: 'Llama 3.1–3.3 (JSON tool calls, <|python_tag|>)',
  detect: (f) => f.specialTokens.has('<|eot_id|>') && f.specialTokens.has('<|start_header_id|>'),
  parse: parseLlama3,
  stopStrings: ['<|eot_id|>', '<|eom_id|>'],
  codeTemplate: llama3CodeTemplate,
  // The Llama 3 template of a checkpoint without tool support (e.g. the 3.0 one) silently drops tools and tool
  // messages; the published 3.1 format is rendered in code then.
  needsCodeTemplate: (t) => t === undefined || !t.includes('tools'),
};
