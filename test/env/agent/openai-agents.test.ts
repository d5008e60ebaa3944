import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import OpenAI from 'openai';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import { DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type Example } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call } from './helpers.js';

setTracingDisabled(true);
const envs: AgentEnvironment[] = [];
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

let executed = 0;
const add = tool({
  name: 'add',
  description: 'Adds two integers.',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: async ({ a, b }) => (executed++, String(a + b)),
});

/** An @openai/agents agent exactly as its docs write one, pointed at the rollout's endpoint. */
async function agentsSdkAgent({
  baseURL,
  apiKey,
  model,
  example,
  signal,
}: {
  baseURL: string;
  apiKey: string;
  model: string;
  example: Example;
  signal: AbortSignal;
}) {
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const agent = new Agent({
    name: 'calculator',
    instructions: 'Use the add tool, then answer.',
    tools: [add],
    // the Agents SDK's own chat-completions model over the rollout's client (its types come from its own openai copy)
    model: new OpenAIChatCompletionsModel(client as never, model),
  });
  const result = await run(agent, example.question, { signal, maxTurns: 6 });
  return String(result.finalOutput ?? '');
}

/** Hazard: the Agents SDK's loop (tool schema, call ids, message shapes) not reaching the policy, or its turns not merging. */
describe('agentEnvironment with @openai/agents', () => {
  it('runs an Agents SDK agent with a function tool; its turns are recorded and merge into one datum', async () => {
    const renderer = await localRenderer();
    let sawToolSchema = false;
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt }) => {
        sawToolSchema ||= prompt.includes('add(a: integer, b: integer)'); // the embedded template's rendering of the zod schema
        const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
        return seen.length === 0 ? call('add', { a: 19, b: 23 }) : `The answer is ${seen[0]}.`;
      },
    });
    const env = agentEnvironment({ run: agentsSdkAgent });
    envs.push(env);
    const group = await runGroup(
      { sampler, renderer, env, budgets: DEFAULT_BUDGETS },
      { example: { id: 'a', question: 'What is 19 + 23?', answer: '42' }, groupSize: 2 },
    );
    expect(sawToolSchema).toBe(true);
    for (const t of group) {
      expect(t.error?.message).toBeUndefined();
      expect(t.stopReason).toBe('answer');
      expect(t.finalText).toBe('The answer is 42.');
      expect(t.turns).toHaveLength(2);
      expect(t.turns[0]!.observation?.map((m) => m.content)).toEqual(['42']);
      expect(buildDatums([t], [1]).datums).toHaveLength(1);
    }
  });

  // Hazard: the Agents SDK running one tool more than maxToolCalls allows.
  it('runs no tool past maxToolCalls: the SDK gets the limiting reply without its calls and finishes', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => call('add', { a: 1, b: 2 }) }); // never answers
    const env = agentEnvironment({ run: agentsSdkAgent });
    envs.push(env);
    for (const maxToolCalls of [0, 2]) {
      executed = 0;
      const [t] = await runGroup(
        { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls, maxTurns: 10 } },
        { example: { id: 'b', question: 'What is 1 + 2?', answer: '3' }, groupSize: 1 },
      );
      expect(t!.error?.message).toBeUndefined();
      expect(t!.stopReason).toBe('max_tool_calls');
      expect(executed).toBe(maxToolCalls);
      expect(t!.toolCalls).toBe(maxToolCalls);
      expect(t!.turns).toHaveLength(maxToolCalls + 1);
    }
  });
});
