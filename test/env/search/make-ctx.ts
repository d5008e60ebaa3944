import type { ToolContext } from '../../../src/env/types.js';
import type { ParsedAction } from '../../../src/types/action.js';
import type { Example } from '../../../src/types/example.js';

/** A rough tokenizer stand-in: one token per 4 characters (rounded up). */
export const countTokens = (s: string): number => Math.ceil(s.length / 4);

/** A hand-made ToolContext, as the rollout engine would build it for one branch. */
export function makeCtx(over: Partial<Omit<ToolContext, 'countTokens'>> & { example?: Example } = {}): ToolContext {
  const example = over.example ?? { id: 'ex1', question: 'What is the capital of Finland?', answer: 'Helsinki' };
  return {
    trajectoryId: `${example.id}/0`,
    groupIndex: 0,
    toolCalls: 0,
    maxToolResponseTokens: 512,
    signal: new AbortController().signal,
    state: new Map(),
    ...over,
    example,
    countTokens,
  };
}

/** A parsed native tool call, as the renderer hands it to `Environment.step`. */
export function toolCall(name: string, args: Record<string, unknown>, id?: string): ParsedAction {
  const call = { type: 'function' as const, function: { name, arguments: args }, ...(id ? { id } : {}) };
  return { kind: 'tool', content: '', raw: `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`, call, calls: [call] };
}
