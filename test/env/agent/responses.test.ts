import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import OpenAI from 'openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type AgentRunArgs, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { ADD_RESPONSES_TOOL, call, responsesToolLoop } from './helpers.js';

setTracingDisabled(true);
const ex: Example = { id: 'sum', question: 'What is 2 + 40?', answer: '42' };
const envs: AgentEnvironment[] = [];
const track = (e: AgentEnvironment) => (envs.push(e), e);
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

/** The model: calls `add` first, then answers with the tool response it sees. */
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

/** Two turns, the second prompt extending the first prompt + its sampled tokens exactly, one datum masked on the sampled tokens. */
function expectMergedToolLoop(t: Trajectory, finalText: string) {
  expect(t.error?.message).toBeUndefined();
  expect(t.stopReason).toBe('answer');
  expect(t.finalText).toBe(finalText);
  expect(t.turns).toHaveLength(2);
  expect(t.toolCalls).toBe(1);
  const first = [...t.turns[0]!.promptTokens, ...t.turns[0]!.completionTokens];
  expect(t.turns[1]!.promptTokens.slice(0, first.length)).toEqual(first);
  expect(t.turns[0]!.observation?.map((m) => m.content)).toEqual(['42']);
  const { datums } = buildDatums([t], [1]);
  expect(datums).toHaveLength(1);
  const d = datums[0]!;
  expect(d.modelInput.slice(0, first.length)).toEqual(first);
  const sampled = t.turns.flatMap((turn) => turn.completionTokens);
  expect(d.targetTokens.filter((_, i) => d.mask[i] === 1)).toEqual(sampled);
}

/** Hazard: agents on the Responses API (the default of the Agents SDK and OpenAI's newer clients) refused, or their turns recorded apart. */
describe('agentEnvironment: /v1/responses with the official openai client', () => {
  for (const stream of [false, true]) {
    for (const chain of [false, true]) {
      it(`responses.create tool loop (stream: ${stream}, previous_response_id: ${chain}) merges into one datum`, async () => {
        const { renderer, sampler } = await toolModel();
        const env = track(agentEnvironment({ run: (a) => responsesToolLoop(a, { stream, chain }) }));
        const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
        for (const t of group) {
          expectMergedToolLoop(t, 'The sum is \\boxed{42}');
          expect(t.agentOutput).toBe('The sum is \\boxed{42}');
          expect(t.messages[0]).toEqual({ role: 'system', content: 'Use the add tool.' });
        }
      });
    }
  }

  it('streams the text token by token as output_text deltas; the final response carries usage', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => 'Forty-two, naïvely: 42 ✓' });
    const env = track(
      agentEnvironment({
        run: async ({ baseURL, apiKey, model, signal }) => {
          const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
          const stream = await client.responses.create({ model, input: 'hi', stream: true }, { signal });
          const deltas: string[] = [];
          const types: string[] = [];
          let usage: unknown;
          for await (const ev of stream) {
            types.push(ev.type);
            if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
            if (ev.type === 'response.completed') usage = ev.response.usage;
          }
          return { deltas, types, usage };
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    const out = t!.agentOutput as { deltas: string[]; types: string[]; usage: { input_tokens: number; output_tokens: number } };
    expect(out.deltas.join('')).toBe('Forty-two, naïvely: 42 ✓');
    expect(out.deltas.length).toBeGreaterThan(3);
    expect(out.types[0]).toBe('response.created');
    expect(out.types.at(-1)).toBe('response.completed');
    expect(out.usage.input_tokens).toBe(t!.turns[0]!.promptTokens.length);
    expect(out.usage.output_tokens).toBe(t!.turns[0]!.completionTokens.length);
  });

  it('refuses what it cannot honour (400), records nothing, and the rollout goes on', async () => {
    const { renderer, sampler } = await toolModel();
    const bad: Record<string, unknown>[] = [
      { tools: [{ type: 'web_search' }] },
      { previous_response_id: 'resp_nope' },
      { text: { format: { type: 'json_schema', name: 'x', schema: {} } } },
      { tool_choice: 'required', tools: [ADD_RESPONSES_TOOL] },
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/y.png' }] }] },
      { input: [{ type: 'item_reference', id: 'x' }] },
      { input: [{ type: 'function_call', call_id: 'c', name: 'add', arguments: '{nope' }] },
    ];
    const env = track(
      agentEnvironment({
        run: async ({ baseURL, apiKey, model }) => {
          const statuses: number[] = [];
          for (const extra of bad) {
            const res = await fetch(`${baseURL}/responses`, {
              method: 'POST',
              headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model, input: 'hi', ...extra }),
            });
            statuses.push(res.status);
          }
          const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
          await client.responses.create({ model, input: 'hi' }); // the model call the rollout allows is still free
          return statuses;
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 1 } }, { example: ex, groupSize: 1 });
    expect(t!.agentOutput).toEqual(bad.map(() => 400));
    expect(t!.turns).toHaveLength(1);
  });

  it('withholds function calls past maxToolCalls (the response carries the text only) and ends the trajectory there', async () => {
    const { renderer, sampler } = await toolModel(() => `Adding.\n${call('add', { a: 2, b: 40 })}`);
    for (const stream of [false, true]) {
      const env = track(agentEnvironment({ run: (a) => responsesToolLoop(a, { stream }) }));
      const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 0 } }, { example: ex, groupSize: 1 });
      expect(t!.stopReason).toBe('max_tool_calls');
      expect(t!.agentOutput).toBe('Adding.');
      expect(t!.turns).toHaveLength(1);
      expect(t!.turns[0]!.action.kind).toBe('tool');
    }
  });
});

let executed = 0;
const add = tool({
  name: 'add',
  description: 'Adds two integers.',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: async ({ a, b }) => (executed++, String(a + b)),
});

/** An @openai/agents agent on the SDK's default model provider (OpenAIProvider: the Responses API), given the rollout's endpoint. */
async function defaultProviderAgent({ baseURL, apiKey, example, signal }: AgentRunArgs, stream: boolean): Promise<string> {
  const agent = new Agent({ name: 'calculator', instructions: 'Use the add tool, then answer.', tools: [add] });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ baseURL, apiKey }) });
  if (stream) {
    const result = await runner.run(agent, example.question, { signal, maxTurns: 6, stream: true });
    await result.completed;
    return String(result.finalOutput ?? '');
  }
  const result = await runner.run(agent, example.question, { signal, maxTurns: 6 });
  return String(result.finalOutput ?? '');
}

/** Hazard: the Agents SDK's default provider (Responses API: its items, call ids, streaming events) not reaching the policy. */
describe('agentEnvironment with @openai/agents on its default model provider', () => {
  for (const stream of [false, true]) {
    it(`runs an Agent unchanged over /v1/responses (stream: ${stream}); its turns merge into one datum`, async () => {
      const { renderer, sampler } = await toolModel(() => call('add', { a: 19, b: 23 }));
      executed = 0;
      const env = track(agentEnvironment({ run: (a) => defaultProviderAgent(a, stream) }));
      const group = await runGroup(
        { sampler, renderer, env, budgets: DEFAULT_BUDGETS },
        { example: { id: 'a', question: 'What is 19 + 23?', answer: '42' }, groupSize: 2 },
      );
      expect(executed).toBe(2);
      for (const t of group) expectMergedToolLoop(t, 'The sum is \\boxed{42}');
    });
  }
});
