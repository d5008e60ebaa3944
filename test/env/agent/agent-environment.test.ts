import { afterAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ConfigError, DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call, openaiToolLoop } from './helpers.js';

const ex: Example = { id: 'sum', question: 'What is 2 + 40?', answer: '42' };
const envs: AgentEnvironment[] = [];
const track = (e: AgentEnvironment) => (envs.push(e), e);
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

/** The model: a tool call first (two calls on branch `parallel`), then the answer from the tool responses it sees. */
async function toolModel(opts: { parallel?: boolean } = {}) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt }) => {
      const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
      if (seen.length === 0) return opts.parallel ? `${call('add', { a: 2, b: 40 })}\n${call('add', { a: 1, b: 1 })}` : call('add', { a: 2, b: 40 });
      return `The sum is \\boxed{${seen[0]}}`;
    },
  });
  return { renderer, sampler };
}

/** The whole trajectory merges into one datum whose masked tokens are exactly the sampled ones. */
function expectOneDatum(t: Trajectory) {
  const { datums } = buildDatums([t], [1]);
  expect(datums).toHaveLength(1);
  const sampled = t.turns.reduce((n, turn) => n + turn.completionTokens.length, 0);
  expect(datums[0]!.mask.reduce((a, b) => a + b, 0)).toBe(sampled);
  return datums[0]!;
}

/** Hazard: an existing agent that cannot be trained without a rewrite, or whose recorded tokens differ from the tokens sampled, or that hangs or crashes the run. */
describe('agentEnvironment with the official openai client', () => {
  for (const stream of [false, true]) {
    it(`records a tool-calling loop token for token and merges it into one datum (stream: ${stream})`, async () => {
      const { renderer, sampler } = await toolModel();
      const env = track(agentEnvironment({ run: (a) => openaiToolLoop(a, { stream }) }));
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
      for (const t of group) {
        expect(t.stopReason).toBe('answer');
        expect(t.finalText).toBe('The sum is \\boxed{42}');
        expect(t.turns).toHaveLength(2);
        expect(t.toolCalls).toBe(1);
        expect(t.turns[0]!.action.kind).toBe('tool');
        // the second prompt extends the first prompt + its sampled tokens exactly
        const first = [...t.turns[0]!.promptTokens, ...t.turns[0]!.completionTokens];
        expect(t.turns[1]!.promptTokens.slice(0, first.length)).toEqual(first);
        expect(t.turns[0]!.observation?.map((m) => m.content)).toEqual(['42']);
        const d = expectOneDatum(t);
        expect(renderer.decode(d.modelInput)).toContain('42');
      }
      expect(env.activeRollouts).toBe(0);
    });
  }

  // Hazard: the trainer's engine step runs on the same thread as the endpoint and the agent. A step longer than the
  // endpoint's keep-alive timeout (5 s before) made the server drop every idle pooled connection at the moment the
  // next step's agents reused them: `read ECONNRESET` ("Connection error.") for 15 of 16 trajectories of the
  // mcp-agent example's second step, with an agent that does not retry.
  it('agents that reuse pooled connections after a long blocking step still reach the endpoint', async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(agentEnvironment({ run: (a) => openaiToolLoop(a) }));
    const ctx = { sampler, renderer, env, budgets: DEFAULT_BUDGETS };
    expect((await runGroup(ctx, { example: ex, groupSize: 4 })).map((t) => t.stopReason)).toEqual(Array(4).fill('answer'));
    const until = Date.now() + 6_000;
    while (Date.now() < until); // a synchronous engine step: nothing else runs, timers fire late
    const after = await runGroup(ctx, { example: ex, groupSize: 4 });
    expect(after.map((t) => t.error?.message ?? t.stopReason)).toEqual(Array(4).fill('answer'));
  }, 30_000);

  it('records parallel tool calls of one turn', async () => {
    const { renderer, sampler } = await toolModel({ parallel: true });
    const env = track(agentEnvironment({ run: (a) => openaiToolLoop(a) }));
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('answer');
    expect(t!.toolCalls).toBe(2);
    expect(t!.turns[0]!.observation?.map((m) => m.content)).toEqual(['42', '2']);
    expectOneDatum(t!);
  });

  it('samples with the rollout settings and its budgets, not the agent’s', async () => {
    const renderer = await localRenderer();
    const seen: { temperature?: number; maxTokens: number }[] = [];
    const inner = scriptedSampler({ renderer, script: () => 'hello' });
    const sampler = {
      ...inner,
      sample: (p: readonly number[], params: Parameters<typeof inner.sample>[1]) => (
        seen.push({ temperature: params.temperature!, maxTokens: params.maxTokens }), inner.sample(p, params)
      ),
    };
    const env = track(
      agentEnvironment({
        run: async ({ baseURL, apiKey, model, signal }) => {
          const r = await new OpenAI({ baseURL, apiKey, maxRetries: 0 }).chat.completions.create(
            { model, messages: [{ role: 'user', content: 'hi' }], temperature: 0.1, max_tokens: 5000 },
            { signal },
          );
          return r.choices[0]!.message.content;
        },
      }),
    );
    const [t] = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurnTokens: 77 }, sampling: { temperature: 0.7 } },
      { example: ex, groupSize: 1 },
    );
    expect(t!.finalText).toBe('hello');
    expect(seen).toEqual([{ temperature: 0.7, maxTokens: 77 }]);
  });

  it('withholds the tool calls of the last call maxTurns allows and ends the trajectory with that stop reason', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => call('add', { a: 1, b: 2 }) }); // never answers
    const env = track(agentEnvironment({ run: (a) => openaiToolLoop(a, { maxSteps: 50 }) }));
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurns: 3, maxToolCalls: 10 } }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('max_turns');
    expect(t!.turns).toHaveLength(3);
  });

  it('keeps a separate conversation (a summariser call) as a separate datum of the same trajectory', async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(
      agentEnvironment({
        run: async (a) => {
          const answer = await openaiToolLoop(a);
          const client = new OpenAI({ baseURL: a.baseURL, apiKey: a.apiKey, maxRetries: 0 });
          await client.chat.completions.create({ model: a.model, messages: [{ role: 'user', content: `Summarise: ${answer}` }] }, { signal: a.signal });
          return { answer, notes: 'summarised' };
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('answer');
    expect(t!.turns.map((x) => x.newDatum ?? false)).toEqual([false, false, true]);
    expect(t!.agentOutput).toEqual({ answer: 'The sum is \\boxed{42}', notes: 'summarised' });
    expect(buildDatums([t!], [1]).datums).toHaveLength(2); // newDatum turns split under every policy
  });

  it('fails only the trajectory of a crashing agent, and one that never calls the model', async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(
      agentEnvironment({
        run: async (a) => {
          if (a.groupIndex === 1) throw new TypeError('agent bug');
          if (a.groupIndex === 2) return 'answered without the model';
          return openaiToolLoop(a);
        },
      }),
    );
    const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 3 });
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'error', 'error']);
    expect(group[1]!.error).toMatchObject({ stage: 'agent', code: 'TypeError' });
    expect(group[1]!.error!.message).toMatch(/agent bug/);
    expect(group[2]!.error!.message).toMatch(/without calling the model/);
  });

  it('ends on time an agent that ignores its abort signal, and refuses its later calls', async () => {
    const { renderer, sampler } = await toolModel();
    let late: unknown;
    let lateDone!: () => void;
    const lateSeen = new Promise<void>((r) => (lateDone = r));
    const env = track(
      agentEnvironment({
        timeoutMs: 400,
        run: async ({ baseURL, apiKey, model }) => {
          const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
          await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
          await new Promise((r) => setTimeout(r, 4000)); // ignores the signal
          late = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'again' }] }).catch((e: unknown) => e);
          lateDone();
          return 'too late';
        },
      }),
    );
    const t0 = Date.now();
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(Date.now() - t0).toBeLessThan(3500); // the agent is still asleep
    expect(t!.stopReason).toBe('error');
    expect(t!.error!.stage).toBe('timeout');
    await lateSeen;
    expect((late as { status?: number }).status).toBe(401);
  });

  it("ends with the engine's trajectoryTimeoutMs too", async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(agentEnvironment({ run: () => new Promise(() => {}) }));
    const t0 = Date.now();
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS, trajectoryTimeoutMs: 300 }, { example: ex, groupSize: 1 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(t!.error?.stage).toBe('timeout');
  });

  it('refuses requests without the rollout key, and bad options', async () => {
    const { renderer, sampler } = await toolModel();
    let status: number | undefined;
    const env = track(
      agentEnvironment({
        run: async (a) => {
          status = await new OpenAI({ baseURL: a.baseURL, apiKey: 'guess', maxRetries: 0 }).chat.completions
            .create({ model: a.model, messages: [{ role: 'user', content: 'x' }] })
            .then(
              () => 200,
              (e: { status?: number }) => e.status,
            );
          return openaiToolLoop(a);
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(status).toBe(401);
    expect(t!.stopReason).toBe('answer');
    expect(() => agentEnvironment({ run: undefined as never })).toThrow(ConfigError);
    expect(() => agentEnvironment({ run: async () => '', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
