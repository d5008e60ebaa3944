import type { Renderer } from '../../chat/types.js';
import type { Message, ToolDefinition } from '../../types/message.js';

const longest = new WeakMap<Renderer, number>();

/**
 * The most UTF-8 bytes one token of `renderer`'s vocabulary decodes to (its longest token), computed once per
 * renderer: no text of B bytes tokenises to fewer than B / this tokens, so a request of more than
 * `tokens × maxTokenBytes` bytes of text cannot fit `tokens`, and is refused without tokenising it.
 */
export function maxTokenBytes(renderer: Renderer): number {
  let max = longest.get(renderer);
  if (max === undefined) {
    max = 1;
    for (let id = 0; id < renderer.vocabSize; id++) max = Math.max(max, Buffer.byteLength(renderer.decode([id])));
    longest.set(renderer, max);
  }
  return max;
}

/**
 * UTF-8 bytes of the text a request would put in the prompt: every message's content, its tool calls (name and
 * arguments as JSON), the tool definitions and template variables as JSON. O(bytes), no tokenising.
 */
export function requestTextBytes(messages: readonly Message[], tools: readonly ToolDefinition[], templateKwargs: unknown): number {
  let bytes = 0;
  for (const m of messages) {
    bytes += Buffer.byteLength(m.content);
    if (m.role === 'assistant')
      for (const c of m.toolCalls ?? []) bytes += Buffer.byteLength(c.function.name) + Buffer.byteLength(JSON.stringify(c.function.arguments));
  }
  if (tools.length) bytes += Buffer.byteLength(JSON.stringify(tools));
  if (templateKwargs) bytes += Buffer.byteLength(JSON.stringify(templateKwargs));
  return bytes;
}
