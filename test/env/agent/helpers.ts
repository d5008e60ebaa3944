import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AgentRunArgs } from 'agentrl';

export const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

export const ADD_TOOL: ChatCompletionTool = {
  type: 'function',
  function: { name: 'add', description: 'Adds two integers.', parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] } },
};

/** A plain tool-calling loop with the official `openai` client, as a user would write it (nothing agentrl-specific). */
export async function openaiToolLoop(args: AgentRunArgs, opts: { stream?: boolean; maxSteps?: number; onToolCall?: (name: string, args: unknown) => void } = {}): Promise<string> {
  const client = new OpenAI({ baseURL: args.baseURL, apiKey: args.apiKey, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: 'Use the add tool.' }, { role: 'user', content: args.example.question }];
  for (let step = 0; step < (opts.maxSteps ?? 8); step++) {
    let content: string | null = null;
    let toolCalls: { id: string; name: string; arguments: string }[] = [];
    if (opts.stream) {
      const stream = await client.chat.completions.create({ model: args.model, messages, tools: [ADD_TOOL], stream: true }, { signal: args.signal });
      const acc = new Map<number, { id: string; name: string; arguments: string }>();
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta;
        if (d?.content) content = (content ?? '') + d.content;
        for (const tc of d?.tool_calls ?? []) {
          const cur = acc.get(tc.index) ?? { id: '', name: '', arguments: '' };
          acc.set(tc.index, { id: cur.id + (tc.id ?? ''), name: cur.name + (tc.function?.name ?? ''), arguments: cur.arguments + (tc.function?.arguments ?? '') });
        }
      }
      toolCalls = [...acc.values()];
    } else {
      const r = await client.chat.completions.create({ model: args.model, messages, tools: [ADD_TOOL] }, { signal: args.signal });
      const m = r.choices[0]!.message;
      content = m.content;
      toolCalls = (m.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
    }
    if (toolCalls.length === 0) return content ?? '';
    messages.push({ role: 'assistant', content, tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    for (const c of toolCalls) {
      const { a, b } = JSON.parse(c.arguments) as { a: number; b: number };
      opts.onToolCall?.(c.name, { a, b });
      messages.push({ role: 'tool', tool_call_id: c.id, content: String(a + b) });
    }
  }
  return 'gave up';
}
