import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AgentRunArgs } from 'agentrl';

export const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

export const ADD_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'add',
    description: 'Adds two integers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
  },
};

/** A plain tool-calling loop with the official `openai` client, as a user would write it (nothing agentrl-specific). */
export async function openaiToolLoop(
  args: AgentRunArgs,
  opts: { stream?: boolean; maxSteps?: number; onToolCall?: (name: string, args: unknown) => void } = {},
): Promise<string> {
  const client = new OpenAI({ baseURL: args.baseURL, apiKey: args.apiKey, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Use the add tool.' },
    { role: 'user', content: args.example.question },
  ];
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
          acc.set(tc.index, {
            id: cur.id + (tc.id ?? ''),
            name: cur.name + (tc.function?.name ?? ''),
            arguments: cur.arguments + (tc.function?.arguments ?? ''),
          });
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
    messages.push({
      role: 'assistant',
      content,
      tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    for (const c of toolCalls) {
      const { a, b } = JSON.parse(c.arguments) as { a: number; b: number };
      opts.onToolCall?.(c.name, { a, b });
      messages.push({ role: 'tool', tool_call_id: c.id, content: String(a + b) });
    }
  }
  return 'gave up';
}

/** The `add` tool as the Responses API declares it. */
export const ADD_RESPONSES_TOOL = {
  type: 'function' as const,
  name: 'add',
  description: 'Adds two integers.',
  strict: false,
  parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
};

/**
 * A tool loop on the official client's `responses.create`, as a user would write it: `chain` continues each response
 * by `previous_response_id` (sending only the tool outputs), otherwise the whole input is sent again each step.
 */
export async function responsesToolLoop(args: AgentRunArgs, opts: { stream?: boolean; chain?: boolean; maxSteps?: number } = {}): Promise<string> {
  const client = new OpenAI({ baseURL: args.baseURL, apiKey: args.apiKey, maxRetries: 0 });
  type Item = Record<string, unknown>;
  const input: Item[] = [{ role: 'user', content: args.example.question }];
  let previous: string | undefined;
  let next: Item[] = input;
  for (let step = 0; step < (opts.maxSteps ?? 8); step++) {
    const body = {
      model: args.model,
      instructions: 'Use the add tool.',
      input: next as never,
      tools: [ADD_RESPONSES_TOOL],
      ...(previous ? { previous_response_id: previous } : {}),
    };
    let output: Item[];
    let id: string;
    if (opts.stream) {
      const stream = await client.responses.create({ ...body, stream: true }, { signal: args.signal });
      let done: { id: string; output: Item[] } | undefined;
      for await (const ev of stream) if (ev.type === 'response.completed') done = ev.response as never;
      ({ id, output } = done!);
    } else {
      ({ id, output } = (await client.responses.create(body, { signal: args.signal })) as never);
    }
    const calls = output.filter((o) => o.type === 'function_call') as { call_id: string; arguments: string }[];
    const text = output
      .filter((o) => o.type === 'message')
      .map((o) => (o.content as { text: string }[])[0]!.text)
      .join('');
    if (calls.length === 0) return text;
    const results = calls.map((c) => {
      const { a, b } = JSON.parse(c.arguments) as { a: number; b: number };
      return { type: 'function_call_output', call_id: c.call_id, output: String(a + b) };
    });
    if (opts.chain) {
      previous = id;
      next = results;
    } else {
      input.push(...output, ...results);
      next = input;
    }
  }
  return 'gave up';
}
