import type { ToolCall } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { functionCall, jsonObjectAt, skipSpace } from './json-call.js';

/** DeepSeek V3's tool-call markers (full-width bars and `▁`, each one added token). */
export const DEEPSEEK_MARKERS = {
  callsBegin: '<｜tool▁calls▁begin｜>',
  callsEnd: '<｜tool▁calls▁end｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  sep: '<｜tool▁sep｜>',
} as const;

const M = DEEPSEEK_MARKERS;
const ALL_MARKERS = Object.values(M);
const THINK_CLOSE = '</think>';

/**
 * Splits R1-style reasoning off: everything up to the first `</think>` (an opening `<think>` is optional, since the
 * R1 template puts it in the prompt), as vLLM's `deepseek_r1` reasoning parser does. The rest is parsed for calls.
 */
function splitReasoning(text: string): { reasoning?: string; rest: string; offset: number } {
  const end = text.indexOf(THINK_CLOSE);
  if (end < 0) return { rest: text, offset: 0 };
  const head = text.slice(0, end);
  const open = head.indexOf('<think>');
  const reasoning = (open >= 0 ? head.slice(open + '<think>'.length) : head).trim();
  return { reasoning, rest: text.slice(end + THINK_CLOSE.length), offset: end + THINK_CLOSE.length };
}

/**
 * DeepSeek V3 / R1 (the V3 template's form, as vLLM's `deepseek_v3` parser reads it):
 * `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>` then, for
 * more calls, `\n<｜tool▁call▁begin｜>…`, and `<｜tool▁calls▁end｜>` (optional at the very end: the V3 template itself
 * omits it after a single call). Reasoning before `</think>` is split off first; a marker inside it is ignored.
 * Any deviation (type other than `function`, a missing fence or marker, arguments that are not one JSON object, text
 * after the calls) is invalid with its reason; a marker without `<｜tool▁calls▁begin｜>` is `stray_tool_tag`.
 */
export function parseDeepSeekV3(text: string, opts: FamilyParseOptions): FamilyParse {
  const { reasoning, rest } = splitReasoning(text);
  const withReasoning = reasoning !== undefined ? { reasoning } : {};
  const begin = rest.indexOf(M.callsBegin);
  if (begin < 0) {
    if (ALL_MARKERS.some((m) => rest.includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
    return { kind: 'answer', content: rest.trim(), ...withReasoning };
  }
  if (ALL_MARKERS.some((m) => rest.slice(0, begin).includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
  const calls: ToolCall[] = [];
  let i = begin + M.callsBegin.length;
  for (;;) {
    i = skipSpace(rest, i);
    if (!rest.startsWith(M.callBegin, i)) return { kind: 'invalid', reason: calls.length === 0 ? 'empty_tool_call' : 'bad_tool_syntax' };
    const sep = rest.indexOf(M.sep, i);
    const nl = sep < 0 ? -1 : rest.indexOf('\n', sep);
    if (sep < 0 || nl < 0) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    const type = rest.slice(i + M.callBegin.length, sep);
    const name = rest.slice(sep + M.sep.length, nl);
    if (type !== 'function' || name.trim() === '' || ALL_MARKERS.some((m) => name.includes(m))) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    const fence = '```json\n';
    if (!rest.startsWith(fence, nl + 1)) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    const obj = jsonObjectAt(rest, nl + 1 + fence.length);
    if (!obj) return { kind: 'invalid', reason: 'bad_arguments' };
    const close = '\n```' + M.callEnd;
    if (!rest.startsWith(close, obj.end)) return { kind: 'invalid', reason: 'bad_tool_syntax' };
    calls.push(functionCall(name.trim(), obj.value));
    i = skipSpace(rest, obj.end + close.length);
    if (rest.startsWith(M.callBegin, i)) {
      if (!opts.parallelToolCalls) return { kind: 'invalid', reason: 'multiple_tool_calls' };
      continue;
    }
    if (rest.startsWith(M.callsEnd, i)) i += M.callsEnd.length;
    break;
  }
  const after = rest.slice(i);
  if (ALL_MARKERS.some((m) => after.includes(m))) return { kind: 'invalid', reason: 'stray_tool_tag' };
  if (after.trim() !== '') return { kind: 'invalid', reason: 'text_after_tool_call' };
  return { kind: 'calls', content: rest.slice(0, begin).trim(), calls, ...withReasoning };
}

/** DeepSeek V3 / R1: `model_type` `deepseek_v3`, or the tokenizer's `<｜tool▁calls▁begin｜>` token. */
export const deepseekV3Family: ModelFamily = {
  id: 'deepseek_v3',
  label: 'DeepSeek V3 / R1 (tool-call markers)',
  detect: (f) => f.modelType === 'deepseek_v3' || f.specialTokens.has(M.callsBegin) || (f.chatTemplate?.includes(M.callsBegin) ?? false),
  parse: parseDeepSeekV3,
  stopStrings: ['<｜end▁of▁sentence｜>'],
  argumentsAsJsonString: true,
};
