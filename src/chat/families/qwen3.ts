import type { InvalidReason } from '../../types/action.js';
import type { ToolCall } from '../../types/message.js';
import { jsonObjectEnd } from '../json-object-end.js';
import type { FamilyParse, FamilyParseOptions, ModelFamily } from './types.js';
import { callFromJsonText, functionCall, skipSpace, thinkReasoning } from './json-call.js';

/** Opening tag of a tool-call block (Qwen / Hermes convention). */
export const TOOL_CALL_OPEN = '<tool_call>';
/** Closing tag of a tool-call block. */
export const TOOL_CALL_CLOSE = '</tool_call>';

/** One located `<tool_call>` block: its inner text and where it ends. */
interface Block {
  readonly inner: string;
  readonly end: number;
}

/**
 * Finds the `<tool_call>` blocks of `text` the ReTool recipe's way (KMnO4-zx/agentic-rl-lab `05-retool/protocol.py`),
 * shared by the Hermes JSON and Qwen3-Coder XML forms.
 * `locate(open)` returns the block that starts at `open` (or `null` when its end cannot be found structurally; the first
 * `</tool_call>` then ends it). Returns the blocks and the index of the first opening tag, or an invalid reason.
 */
export function findToolCallBlocks(
  text: string,
  opts: Pick<FamilyParseOptions, 'parallelToolCalls'>,
  locate: (open: number) => Block | null,
): { first: number; blocks: Block[] } | InvalidReason {
  const open = text.indexOf(TOOL_CALL_OPEN);
  const firstClose = text.indexOf(TOOL_CALL_CLOSE);
  if (open < 0) return firstClose < 0 ? { first: -1, blocks: [] } : 'stray_tool_tag';
  if (firstClose >= 0 && firstClose < open) return 'stray_tool_tag';
  const blocks: Block[] = [];
  let at = open;
  for (;;) {
    const bodyStart = at + TOOL_CALL_OPEN.length;
    let block = locate(at);
    if (!block) {
      const close = text.indexOf(TOOL_CALL_CLOSE, bodyStart);
      if (close < 0) return text.indexOf(TOOL_CALL_OPEN, bodyStart) >= 0 && !opts.parallelToolCalls ? 'multiple_tool_calls' : 'stray_tool_tag';
      block = { inner: text.slice(bodyStart, close), end: close + TOOL_CALL_CLOSE.length };
      if (block.inner.includes(TOOL_CALL_OPEN)) return opts.parallelToolCalls ? 'stray_tool_tag' : 'multiple_tool_calls';
    }
    const rest = text.slice(block.end);
    const next = rest.indexOf(TOOL_CALL_OPEN);
    if (next >= 0) {
      if (!opts.parallelToolCalls) return 'multiple_tool_calls';
      const between = rest.slice(0, next);
      if (between.includes(TOOL_CALL_CLOSE)) return 'stray_tool_tag';
      if (between.trim() !== '') return 'text_after_tool_call';
      if (block.inner.trim() === '') return 'empty_tool_call';
      blocks.push(block);
      at = block.end + next;
      continue;
    }
    if (rest.includes(TOOL_CALL_CLOSE)) return 'stray_tool_tag';
    if (rest.trim() !== '') return 'text_after_tool_call';
    if (block.inner.trim() === '') return 'empty_tool_call';
    blocks.push(block);
    return { first: open, blocks };
  }
}

/** The JSON object after the opening tag at `open` and the `</tool_call>` right after it, if both are there. */
function locateJsonBlock(text: string, open: number): Block | null {
  const bodyStart = open + TOOL_CALL_OPEN.length;
  const end = jsonObjectEnd(text, skipSpace(text, bodyStart));
  if (end < 0) return null;
  const j = skipSpace(text, end);
  if (!text.startsWith(TOOL_CALL_CLOSE, j)) return null;
  return { inner: text.slice(bodyStart, end), end: j + TOOL_CALL_CLOSE.length };
}

/**
 * Qwen3 / Hermes: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` blocks at the end of the turn, several
 * (separated by whitespace) with `parallelToolCalls`. The rules are the ReTool recipe's, unchanged: the block end is the
 * first `</tool_call>` after a complete JSON object (string-aware), a tag anywhere else (also inside `<think>`) is a
 * malformed turn. `content` keeps the `<think>` block: the Qwen3 template splits it off itself.
 */
export function parseHermes(text: string, opts: FamilyParseOptions): FamilyParse {
  const reasoning = thinkReasoning(text);
  const withReasoning = reasoning !== undefined ? { reasoning } : {};
  const found = findToolCallBlocks(text, opts, (open) => (opts.format === 'json' ? locateJsonBlock(text, open) : null));
  if (typeof found === 'string') return { kind: 'invalid', reason: found };
  if (found.first < 0) return { kind: 'answer', content: text.trim(), ...withReasoning };
  const calls: ToolCall[] = [];
  for (const b of found.blocks) {
    const call = opts.format === 'json' ? callFromJsonText(b.inner) : callFromCode(b.inner, opts.codeToolName);
    if (typeof call === 'string') return { kind: 'invalid', reason: call };
    calls.push(call);
  }
  return { kind: 'calls', content: text.slice(0, found.first).trim(), calls, ...withReasoning };
}

function callFromCode(inner: string, toolName: string): ToolCall | InvalidReason {
  const code = inner.trim();
  return code === '' ? 'empty_code' : functionCall(toolName, { code });
}

/** Qwen3 (and Qwen2.5, QwQ, Hermes-style ChatML models, and the embedded model): the default family. */
export const qwen3Family: ModelFamily = {
  id: 'qwen3',
  label: 'Qwen3 (Hermes JSON tool calls)',
  detect: (f) => f.specialTokens.has('<|im_start|>') || (f.chatTemplate?.includes('<tool_call>') ?? false),
  parse: parseHermes,
  stopStrings: ['<|im_end|>'],
};
