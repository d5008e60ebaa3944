import type { ToolCall } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { callFromJsonValue, functionCall, jsonObjectAt, skipSpace } from './json-call.js';

export const MISTRAL_TOOL_CALLS = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const THINK_OPEN = '[THINK]';
const THINK_CLOSE = '[/THINK]';

/** Reads one JSON value (object or array) at `i` with `JSON.parse` over the shortest balanced prefix. */
function jsonArrayAt(text: string, i: number): { value: unknown[]; end: number } | null {
  if (text[i] !== '[') return null;
  let depth = 0;
  let inString = false;
  for (let k = i; k < text.length; k++) {
    const c = text[k];
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        try {
          const v: unknown = JSON.parse(text.slice(i, k + 1));
          return Array.isArray(v) ? { value: v, end: k + 1 } : null;
        } catch {
          return null;
        }
      }
    }
  }
  return null;
}

/**
 * Mistral (vLLM's `mistral` parser), both tokenizer generations: before v11,
 * `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]` (one JSON list, several entries = parallel calls); from v11,
 * `[TOOL_CALLS]NAME[ARGS]{…}` per call (optionally `NAME[CALL_ID]id[ARGS]{…}`), repeated for parallel calls. Text before
 * the first `[TOOL_CALLS]` is the content; `[THINK]…[/THINK]` (Magistral) is reasoning. Text after the calls is
 * `text_after_tool_call`; anything else malformed is `bad_tool_syntax` / `bad_tool_json` / `bad_arguments`.
 */
export function parseMistral(text: string, opts: FamilyParseOptions): FamilyParse {
  let reasoning: string | undefined;
  let from = 0;
  const tc = text.indexOf(THINK_CLOSE);
  if (tc >= 0) {
    const to = text.lastIndexOf(THINK_OPEN, tc);
    reasoning = text.slice(to < 0 ? 0 : to + THINK_OPEN.length, tc).trim();
    from = tc + THINK_CLOSE.length;
  }
  const withReasoning = reasoning !== undefined ? { reasoning } : {};
  const first = text.indexOf(MISTRAL_TOOL_CALLS, from);
  if (first < 0) {
    if (text.indexOf(ARGS, from) >= 0) return { kind: 'invalid', reason: 'stray_tool_tag' };
    return { kind: 'answer', content: text.trim(), ...withReasoning };
  }
  const content = text.slice(0, first).trim();
  const calls: ToolCall[] = [];
  let i = first + MISTRAL_TOOL_CALLS.length;
  const listStart = skipSpace(text, i);
  if (text[listStart] === '[' && !text.startsWith(ARGS, listStart) && !text.startsWith(CALL_ID, listStart)) {
    const list = jsonArrayAt(text, listStart);
    if (!list) return { kind: 'invalid', reason: 'bad_tool_json' };
    if (list.value.length === 0) return { kind: 'invalid', reason: 'empty_tool_call' };
    if (list.value.length > 1 && !opts.parallelToolCalls) return { kind: 'invalid', reason: 'multiple_tool_calls' };
    for (const v of list.value) {
      const call = callFromJsonValue(v);
      if (typeof call === 'string') return { kind: 'invalid', reason: call };
      calls.push(call);
    }
    i = list.end;
  } else {
    for (;;) {
      const a = text.indexOf(ARGS, i);
      if (a < 0) return { kind: 'invalid', reason: 'bad_tool_syntax' };
      let name = text.slice(i, a);
      let id: string | undefined;
      const c = name.indexOf(CALL_ID);
      if (c >= 0) {
        id = name.slice(c + CALL_ID.length).trim();
        name = name.slice(0, c);
        if (id === '') return { kind: 'invalid', reason: 'bad_tool_syntax' };
      }
      name = name.trim();
      if (name === '' || /[\s[\]{}]/.test(name)) return { kind: 'invalid', reason: 'bad_tool_syntax' };
      const obj = jsonObjectAt(text, skipSpace(text, a + ARGS.length));
      if (!obj) return { kind: 'invalid', reason: 'bad_arguments' };
      calls.push(functionCall(name, obj.value, id));
      i = skipSpace(text, obj.end);
      if (!text.startsWith(MISTRAL_TOOL_CALLS, i)) break;
      if (!opts.parallelToolCalls) return { kind: 'invalid', reason: 'multiple_tool_calls' };
      i += MISTRAL_TOOL_CALLS.length;
    }
  }
  const after = text.slice(i);
  if (after.includes(MISTRAL_TOOL_CALLS) || after.includes(ARGS))
    return { kind: 'invalid', reason: opts.parallelToolCalls ? 'stray_tool_tag' : 'multiple_tool_calls' };
  if (after.trim() !== '') return { kind: 'invalid', reason: 'text_after_tool_call' };
  return { kind: 'calls', content, calls, ...withReasoning };
}

/** Mistral / Mixtral / Magistral / Devstral: `model_type` `mistral` / `mixtral`, or the `[TOOL_CALLS]` token. */
export const mistralFamily: ModelFamily = {
  id: 'mistral',
  label: 'Mistral ([TOOL_CALLS])',
  detect: (f) => f.modelType === 'mistral' || f.modelType === 'mixtral' || f.specialTokens.has(MISTRAL_TOOL_CALLS),
  parse: parseMistral,
  stopStrings: ['</s>'],
};
