import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import {
  DEFAULT_BUDGETS,
  agentEnvironment,
  buildDatums,
  fromAiSdkTools,
  policyLanguageModel,
  runGroup,
  toolEnvironment,
  type AgentEnvironment,
  type Example,
} from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';

const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const ex: Example = { id: 'w', question: 'What is the weather in Oslo?', answer: '' };
let lastSignal: AbortSignal | undefined;
let lastContext: unknown;
const weather = tool({
  description: 'Weather for a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }, { abortSignal, context }) => {
    lastSignal = abortSignal;
    lastContext = context;
    return { city, celsius: city === 'Oslo' ? 4 : 20 };
  },
});
const echo = tool({
  description: 'Echo.',
  inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
  execute: async ({ text }) => text,
});

/** A model that calls `weather` first, then answers with what the tool returned. */
async function weatherModel() {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt }) => {
      const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]!);
      return seen.length === 0 ? call('weather', { city: 'Oslo' }) : `It is ${(JSON.parse(seen[0]!) as { celsius: number }).celsius} degrees.`;
    },
  });
  return { renderer, sampler };
}

const envs: AgentEnvironment[] = [];
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

/** Hazard: AI SDK tools whose schemas or execute options are lost, or AI SDK loops whose samples are not recorded. */
describe('AI SDK interop', () => {
  it('fromAiSdkTools: zod and jsonSchema() tools become agentrl tools; execute gets the trajectory signal and context', async () => {
    const tools = fromAiSdkTools({ weather, echo });
    expect(tools.map((t) => t.definition.function.name)).toEqual(['weather', 'echo']);
    expect(tools[0]!.definition.function.parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    expect(tools[1]!.definition.function.parameters).toMatchObject({ properties: { text: { type: 'string' } } });
    const { renderer, sampler } = await weatherModel();
    const env = toolEnvironment({ name: 'weather', tools, initialMessages: (e) => [{ role: 'user', content: e.question }] });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.messages.find((m) => m.role === 'tool')!.content).toBe('{"city":"Oslo","celsius":4}');
    expect(t!.finalText).toBe('It is 4 degrees.');
    expect(lastSignal).toBeInstanceOf(AbortSignal);
    expect((lastContext as { trajectoryId: string }).trajectoryId).toBe('w/0');
    expect(() => fromAiSdkTools({ 'bad name': echo })).toThrow(/not a tool name/);
  });

  for (const mode of ['generateText', 'streamText'] as const) {
    it(`${mode} with tools runs on the policy through agentEnvironment; its calls are recorded and merge into one datum`, async () => {
      const { renderer, sampler } = await weatherModel();
      const env = agentEnvironment({
        run: async ({ baseURL, apiKey, example, signal }) => {
          const model = policyLanguageModel({ baseURL, apiKey });
          const args = { model, tools: { weather }, stopWhen: stepCountIs(4), prompt: example.question, abortSignal: signal };
          if (mode === 'generateText') return (await generateText(args)).text;
          const r = streamText(args);
          return await r.text;
        },
      });
      envs.push(env);
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
      expect(t!.error?.message).toBeUndefined();
      expect(t!.stopReason).toBe('answer');
      expect(t!.finalText).toBe('It is 4 degrees.');
      expect(t!.turns).toHaveLength(2);
      expect(t!.toolCalls).toBe(1);
      expect(buildDatums([t!], [1]).datums).toHaveLength(1);
    });
  }
});
