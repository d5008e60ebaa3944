import type { ToolCall } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { functionCall, jsonObjectAt, skipSpace, thinkReasoning } from './json-call.js';

/** Kimi K2's tool-call tokens. */
export const KIMI_MARKERS = {
  sectionBegin: '<|tool_calls_section_begin|>',
  sectionEnd: '<|tool_calls_section_end|>',
  callBegin: '<|tool_call_begin|>',
  argBegin: '<|tool_call_argument_begin|>',
  callEnd: '<|tool_call_end|>',
} as const;

const K = KIMI_MARKERS;
const ALL = Object.values(K);
/** A call id as Kimi writes it: `functions.NAME:INDEX`. */
const CALL_ID = /^functions\.([^\s:<>]+):(\d+)$/;

/**
 * Kimi K2 (vLLM's `kimi_k2` parser): `<|tool_calls_section_begin|>` then per call
 * `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`, then
 * `<|tool_calls_section_end|>`, at the end of the turn. The call keeps its id `functions.NAME:IDX` (the template
 * answers it with `## Return of <id>`). K2 Thinking's `<think>…</think>` is reasoning: a marker inside it is ignored.
 * An id not of that form is `bad_tool_syntax`; arguments that are not one JSON object `bad_arguments`.
 */
export function parseKimiK2(text: string, opts: FamilyParseOptions): FamilyParse {
  const reasoning = thinkReasoning(text);
  const withReasoning = reasoning !== undefined ? { reasoning } : {};
  const thinkEnd = text.indexOf('</think>');
  const from = thinkEnd < 0 ? 0 : thinkEnd + '</think>'.length;
  const body = text.slice(from);
  const begin = body.indexOf(K.sectionBegin);
  if (begin < 0) {
    if (ALL.some((m) => body.includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
    return { kind: 'answer', content: text.trim(), ...withReasoning };
  }
  if (ALL.some((m) => body.slice(0, begin).includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
  const calls: ToolCall[] = [];
  let i = begin + K.sectionBegin.length;
  for (;;) {
    i = skipSpace(body, i);
    if (body.startsWith(K.sectionEnd, i)) {
      if (calls.length === 0) return { kind: 'invalid', reason: 'empty_tool_call' };
      i += K.sectionEnd.length;
      break;
    }
    if (!body.startsWith(K.callBegin, i)) return { kind: 'invalid', reason: calls.length === 0 ? 'empty_tool_call' : 'bad_tool_syntax' };
    if (calls.length === 1 && !opts.parallelToolCalls) return { kind: 'invalid', reason: 'multiple_tool_calls' };
    const arg = body.indexOf(K.argBegin, i);
    if (arg < 0) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    const id = body.slice(i + K.callBegin.length, arg).trim();
    const m = CALL_ID.exec(id);
    if (!m) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    const obj = jsonObjectAt(body, skipSpace(body, arg + K.argBegin.length));
    if (!obj) return { kind: 'invalid', reason: 'bad_arguments' };
    const j = skipSpace(body, obj.end);
    if (!body.startsWith(K.callEnd, j)) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    calls.push(functionCall(m[1]!, obj.value, id));
    i = j + K.callEnd.length;
  }
  const after = body.slice(i);
  if (ALL.some((m) => after.includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
  if (after.trim() !== '') return { kind: 'invalid', reason: 'text_after_tool_call' };
  return { kind: 'calls', content: text.slice(0, from + begin).trim(), calls, ...withReasoning };
}

/** Kimi K2 (Instruct / Thinking): `model_type` `kimi_k2`, or its `<|tool_calls_section_begin|>` token. */
export const kimiK2Family: ModelFamily = {
  id: 'kimi_k2',
  label: 'Kimi K2 (tool-call sections)',
  detect: (f) => f.modelType === 'kimi_k2' || f.specialTokens.has(K.sectionBegin) || (f.chatTemplate?.includes(K.sectionBegin) ?? false),
  parse: parseKimiK2,
  stopStrings: ['<|im_end|>'],
};
