import type { ToolCall, ToolDefinition } from '../../types/message.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { functionCall, jsonObjectAt, skipSpace } from './json-call.js';
import { pyJsonDumps } from './py-json.js';

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
 * One call after `<｜tool▁call▁begin｜>` at `i`, in either published form: V3's
 * `function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>` (the V3 template, vLLM `deepseek_v3`) or V3.1's
 * `NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` (the V3.1 model card and template, vLLM `deepseek_v31`, tinker-cookbook).
 */
function callAt(rest: string, i: number): { call: ToolCall; end: number } | { invalid: 'bad_tool_syntax' | 'bad_arguments' } {
  const sep = rest.indexOf(M.sep, i);
  if (sep < 0) return { invalid: 'bad_tool_syntax' };
  const head = rest.slice(i + M.callBegin.length, sep);
  if (head !== 'function') {
    // V3.1: the name, then the arguments object right after the separator.
    const name = head.trim();
    if (name === '' || /[\s]/.test(name) || ALL_MARKERS.some((m) => head.includes(m))) return { invalid: 'bad_tool_syntax' };
    const at = skipSpace(rest, sep + M.sep.length);
    if (rest[at] !== '{') return { invalid: 'bad_tool_syntax' };
    const obj = jsonObjectAt(rest, at);
    if (!obj) return { invalid: 'bad_arguments' };
    const end = skipSpace(rest, obj.end);
    if (!rest.startsWith(M.callEnd, end)) return { invalid: 'bad_tool_syntax' };
    return { call: functionCall(name, obj.value), end: end + M.callEnd.length };
  }
  const nl = rest.indexOf('\n', sep);
  if (nl < 0) return { invalid: 'bad_tool_syntax' };
  const name = rest.slice(sep + M.sep.length, nl);
  if (name.trim() === '' || ALL_MARKERS.some((m) => name.includes(m))) return { invalid: 'bad_tool_syntax' };
  const fence = '```json\n';
  if (!rest.startsWith(fence, nl + 1)) return { invalid: 'bad_tool_syntax' };
  const obj = jsonObjectAt(rest, nl + 1 + fence.length);
  if (!obj) return { invalid: 'bad_arguments' };
  const close = '\n```' + M.callEnd;
  if (!rest.startsWith(close, obj.end)) return { invalid: 'bad_tool_syntax' };
  return { call: functionCall(name.trim(), obj.value), end: obj.end + close.length };
}

/**
 * DeepSeek V3 / R1 (the V3 template's form, as vLLM's `deepseek_v3` parser reads it; V3.1's bare form too, see
 * `callAt`):
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
    const one = callAt(rest, i);
    if ('invalid' in one) return { kind: 'invalid', reason: one.invalid };
    calls.push(one.call);
    i = skipSpace(rest, one.end);
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

/**
 * DeepSeek's published tool list for the system prompt (the layout of the DeepSeek V3.1 model card's "ToolCall"
 * section and its chat template; tinker-cookbook's DeepSeek renderer writes the same): `## Tools`, one
 * `### NAME` / `Description:` / `Parameters: <JSON schema, as Python's json.dumps writes it>` block per tool, then the call format — written here in the
 * V3 template's own form (`function<｜tool▁sep｜>NAME` + a fenced JSON block), the form it renders earlier calls in, so
 * the instructions, the history and the parser agree. The parser reads V3.1's bare form as well.
 */
export function deepseekToolsPrompt(tools: readonly ToolDefinition[], defuse: (text: string) => string = (t) => t): string {
  const blocks = tools.map((t) =>
    defuse(`### ${t.function.name}\nDescription: ${t.function.description}\n\nParameters: ${pyJsonDumps(t.function.parameters)}`),
  );
  return (
    `\n\n## Tools\nYou have access to the following tools:\n\n${blocks.join('\n\n')}\n\n` +
    `IMPORTANT: ALWAYS adhere to this exact format for tool use:\n` +
    `${M.callsBegin}${M.callBegin}function${M.sep}tool_call_name\n\`\`\`json\ntool_call_arguments\n\`\`\`${M.callEnd}{{additional_tool_calls}}${M.callsEnd}\n\n` +
    `Where:\n- \`tool_call_name\` must be an exact match to one of the available tools\n` +
    `- \`tool_call_arguments\` must be valid JSON that strictly follows the tool's Parameters Schema\n` +
    `- For multiple tool calls, chain them directly after a newline, each in its own ${M.callBegin}…${M.callEnd}`
  );
}

/** DeepSeek V3 / R1: `model_type` `deepseek_v3`, or the tokenizer's `<｜tool▁calls▁begin｜>` token. */
export const deepseekV3Family: ModelFamily = {
  id: 'deepseek_v3',
  label: 'DeepSeek V3 / R1 (tool-call markers)',
  detect: (f) => f.modelType === 'deepseek_v3' || f.specialTokens.has(M.callsBegin) || (f.chatTemplate?.includes(M.callsBegin) ?? false),
  parse: parseDeepSeekV3,
  stopStrings: ['<｜end▁of▁sentence｜>'],
  argumentsAsJsonString: true,
  // The V3 / R1 templates render no `tools`; V3.1's does (`## Tools` from its `tools` variable), and is then left alone.
  systemToolPrompt: { needed: (t) => !/\btools\b/.test(t), render: deepseekToolsPrompt },
};
