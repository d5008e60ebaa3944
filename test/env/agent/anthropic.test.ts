import { afterAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type AgentRunArgs, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call } from './helpers.js';

const ex: Example = { id: 'sum', question: 'What is 2 + 40?', answer: '42' };
const envs: AgentEnvironment[] = [];
const track = (e: AgentEnvironment) => (envs.push(e), e);
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

const ADD: Anthropic.Tool = {
  name: 'add',
  description: 'Adds two integers.',
  input_schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
};

async function toolModel(first = () => call('add', { a: 2, b: 40 })) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt }) => {
      const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
      return seen.length === 0 ? first() : `The sum is \\boxed{${seen[0]}}`;
    },
  });
  return { renderer, sampler };
}

/** A tool loop with the official `@anthropic-ai/sdk`, as its docs write one (messages.create / messages.stream). */
async function anthropicToolLoop(
  { anthropicBaseURL, apiKey, model, example, signal }: AgentRunArgs,
  stream: boolean,
): Promise<{ text: string; stops: string[] }> {
  const client = new Anthropic({ baseURL: anthropicBaseURL, apiKey, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: example.question }];
  const stops: string[] = [];
  for (let step = 0; step < 8; step++) {
    const req = { model, max_tokens: 256, system: 'Use the add tool.', tools: [ADD], messages };
    const msg = stream ? await client.messages.stream(req, { signal }).finalMessage() : await client.messages.create(req, { signal });
    stops.push(msg.stop_reason ?? 'null');
    const uses = msg.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    const text = msg.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (msg.stop_reason !== 'tool_use') return { text, stops };
    messages.push({ role: 'assistant', content: msg.content });
    messages.push({
      role: 'user',
      content: uses.map((u) => {
        const { a, b } = u.input as { a: number; b: number };
        return { type: 'tool_result' as const, tool_use_id: u.id, content: String(a + b) };
      }),
    });
  }
  return { text: 'gave up', stops };
}

function expectMergedToolLoop(t: Trajectory) {
  expect(t.error?.message).toBeUndefined();
  expect(t.stopReason).toBe('answer');
  expect(t.turns).toHaveLength(2);
  const first = [...t.turns[0]!.promptTokens, ...t.turns[0]!.completionTokens];
  expect(t.turns[1]!.promptTokens.slice(0, first.length)).toEqual(first);
  expect(t.turns[0]!.observation?.map((m) => m.content)).toEqual(['42']);
  const { datums } = buildDatums([t], [1]);
  expect(datums).toHaveLength(1);
  const d = datums[0]!;
  expect(d.targetTokens.filter((_, i) => d.mask[i] === 1)).toEqual(t.turns.flatMap((turn) => turn.completionTokens));
  expect(t.messages[0]).toEqual({ role: 'system', content: 'Use the add tool.' });
}

/** Hazard: agents built on the Anthropic SDK (or reading ANTHROPIC_BASE_URL) that cannot be trained at all, or whose turns do not merge. */
describe('agentEnvironment: /v1/messages with the official @anthropic-ai/sdk', () => {
  for (const stream of [false, true]) {
    it(`tool use loop (stream: ${stream}): stop reasons tool_use then end_turn; one datum token for token`, async () => {
      const { renderer, sampler } = await toolModel();
      const env = track(agentEnvironment({ run: (a) => anthropicToolLoop(a, stream) }));
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
      for (const t of group) {
        expectMergedToolLoop(t);
        expect(t.agentOutput).toEqual({ text: 'The sum is \\boxed{42}', stops: ['tool_use', 'end_turn'] });
      }
    });
  }

  it('streams text as text_delta events token by token; max_tokens ends with stop_reason max_tokens', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => 'Forty-two, naïvely: 42 ✓ and a long tail of words after it' });
    const env = track(
      agentEnvironment({
        run: async ({ anthropicBaseURL, apiKey, model, signal }) => {
          const client = new Anthropic({ baseURL: anthropicBaseURL, apiKey, maxRetries: 0 });
          const deltas: string[] = [];
          const s = client.messages.stream({ model, max_tokens: 6, messages: [{ role: 'user', content: 'hi' }] }, { signal });
          s.on('text', (d) => deltas.push(d));
          const m = await s.finalMessage();
          return { deltas, stop: m.stop_reason, usage: m.usage };
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    const out = t!.agentOutput as { deltas: string[]; stop: string; usage: { input_tokens: number; output_tokens: number } };
    expect(out.stop).toBe('max_tokens');
    expect(out.deltas.length).toBe(6);
    expect(out.deltas.join('')).toBe(renderer.decode(t!.turns[0]!.completionTokens));
    expect(out.usage).toMatchObject({ input_tokens: t!.turns[0]!.promptTokens.length, output_tokens: 6 });
  });

  it("refuses what it cannot honour in Anthropic's error shape (400), records nothing; a wrong key is 401", async () => {
    const { renderer, sampler } = await toolModel();
    const bad: Record<string, unknown>[] = [
      { tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
      { tool_choice: { type: 'any' }, tools: [ADD] },
      { stop_sequences: ['\n'] },
      { thinking: { type: 'enabled', budget_tokens: 1024 } },
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] },
      { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'image', source: {} }] }] }] },
      { max_tokens: undefined },
    ];
    const env = track(
      agentEnvironment({
        run: async ({ anthropicBaseURL, apiKey, model }) => {
          const client = new Anthropic({ baseURL: anthropicBaseURL, apiKey, maxRetries: 0 });
          const errors: unknown[] = [];
          for (const extra of bad) {
            await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...extra } as never).then(
              () => errors.push('answered'),
              (e: InstanceType<typeof Anthropic.APIError>) => errors.push([e.status, (e.error as { error?: { type?: string } }).error?.type]),
            );
          }
          const wrongKey = await new Anthropic({ baseURL: anthropicBaseURL, apiKey: 'nope', maxRetries: 0 }).messages
            .create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
            .then(
              () => 'answered',
              (e: InstanceType<typeof Anthropic.APIError>) => e.status,
            );
          await client.messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
          return { errors, wrongKey };
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 1 } }, { example: ex, groupSize: 1 });
    expect(t!.agentOutput).toEqual({ errors: bad.map(() => [400, 'invalid_request_error']), wrongKey: 401 });
    expect(t!.turns).toHaveLength(1);
  });

  it('withholds tool_use past maxToolCalls (stop_reason end_turn, the text only) and ends the trajectory there', async () => {
    const { renderer, sampler } = await toolModel(() => `Adding.\n${call('add', { a: 2, b: 40 })}`);
    for (const stream of [false, true]) {
      const env = track(agentEnvironment({ run: (a) => anthropicToolLoop(a, stream) }));
      const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 0 } }, { example: ex, groupSize: 1 });
      expect(t!.stopReason).toBe('max_tool_calls');
      expect(t!.agentOutput).toEqual({ text: 'Adding.', stops: ['end_turn'] });
      expect(t!.turns).toHaveLength(1);
    }
  });
});
