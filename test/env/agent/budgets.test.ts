import { afterAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call, openaiToolLoop } from './helpers.js';

const ex: Example = { id: 'sum', question: 'What is 2 + 40?', answer: '42' };
const envs: AgentEnvironment[] = [];
const track = (e: AgentEnvironment) => (envs.push(e), e);
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

/** A model that never answers: every turn it calls `add` `perTurn` times (turn k adds k + i to 1). */
async function callingModel(perTurn: number) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt }) => {
      const turn = (prompt.match(/<\|im_start\|>assistant/g) ?? []).length - 1;
      return Array.from({ length: perTurn }, (_, i) => call('add', { a: turn, b: i + 1 })).join('\n');
    },
  });
  return { renderer, sampler };
}

/** Runs one rollout of the official-client loop and counts the tools the agent actually ran. */
async function rollout(perTurn: number, budgets: { maxToolCalls: number; maxTurns: number }, stream: boolean) {
  const { renderer, sampler } = await callingModel(perTurn);
  const ran: unknown[] = [];
  const env = track(agentEnvironment({ run: (a) => openaiToolLoop(a, { stream, maxSteps: 50, onToolCall: (_, args) => ran.push(args) }) }));
  const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, ...budgets } }, { example: ex, groupSize: 1 });
  expect(env.activeRollouts).toBe(0);
  return { t: t!, ran };
}

/** The agent's loop ended normally (it got a reply without tool calls), not by a refusal, a crash or its own step limit. */
function expectLoopEndedByTheEndpoint(t: Trajectory) {
  expect(t.error).toBeUndefined();
  expect(t.agentOutput).toBe('');
}

/** Hazard: an agent loop that runs one tool more than `maxToolCalls` allows (or a tool whose result the model can never read), because the budget was only checked on the next request. */
describe('agentEnvironment enforces the tool budgets at the completion that reaches them', () => {
  for (const stream of [false, true]) {
    for (const maxToolCalls of [0, 1, 3]) {
      it(`runs exactly maxToolCalls = ${maxToolCalls} tools of a model that always calls one (stream: ${stream})`, async () => {
        const { t, ran } = await rollout(1, { maxToolCalls, maxTurns: 20 }, stream);
        expect(ran).toHaveLength(maxToolCalls);
        expect(t.stopReason).toBe('max_tool_calls');
        expect(t.toolCalls).toBe(maxToolCalls);
        // the withheld turn is recorded (and trained) as sampled: a tool call
        expect(t.turns).toHaveLength(maxToolCalls + 1);
        expect(t.turns.at(-1)!.action.kind).toBe('tool');
        expectLoopEndedByTheEndpoint(t);
        expect(buildDatums([t], [1]).datums).toHaveLength(1);
      });
    }
  }

  it('counts every call of a parallel turn: a turn that would pass the budget runs none of its calls', async () => {
    for (const [perTurn, maxToolCalls, expectedRan, turns] of [
      [2, 1, 0, 1],
      [2, 3, 2, 2],
      [3, 6, 6, 3],
      [3, 5, 3, 2],
    ] as const) {
      const { t, ran } = await rollout(perTurn, { maxToolCalls, maxTurns: 20 }, false);
      expect({ perTurn, maxToolCalls, ran: ran.length, turns: t.turns.length, stop: t.stopReason }).toEqual({
        perTurn,
        maxToolCalls,
        ran: expectedRan,
        turns,
        stop: 'max_tool_calls',
      });
      expect(t.toolCalls).toBe(expectedRan);
      expectLoopEndedByTheEndpoint(t);
    }
  });

  it('withholds tool calls on the last model call maxTurns allows (their results could never be read)', async () => {
    for (const maxTurns of [1, 2, 4]) {
      const { t, ran } = await rollout(1, { maxToolCalls: 10, maxTurns }, maxTurns === 2);
      expect(ran).toHaveLength(maxTurns - 1);
      expect(t.stopReason).toBe('max_turns');
      expect(t.turns).toHaveLength(maxTurns);
      expectLoopEndedByTheEndpoint(t);
    }
  });

  it('sends the text before the calls as the reply, and refuses any request after the trajectory ended', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => `Let me add.\n${call('add', { a: 2, b: 40 })}` });
    const env = track(
      agentEnvironment({
        run: async ({ baseURL, apiKey, model, signal, example }) => {
          const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
          const tools = [
            {
              type: 'function' as const,
              function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } },
            },
          ];
          const first = (await client.chat.completions.create({ model, messages: [{ role: 'user', content: example.question }], tools }, { signal }))
            .choices[0]!;
          // an agent that asks again anyway
          const again = await client.chat.completions.create({ model, messages: [{ role: 'user', content: example.question }], tools }, { signal }).then(
            () => 'answered',
            (e: unknown) => `${(e as { status?: number }).status} ${(e as { code?: string }).code}`,
          );
          return { reply: first.message.content, toolCalls: first.message.tool_calls ?? [], finish: first.finish_reason, again };
        },
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 0 } }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('max_tool_calls');
    expect(t!.agentOutput).toEqual({ reply: 'Let me add.', toolCalls: [], finish: 'stop', again: '400 max_tool_calls' });
    expect(t!.turns).toHaveLength(1);
    expect(t!.finalText).toBe('Let me add.');
  });
});

/** Hazard: a multi-call turn trained and scored as if the model had made only its first call. */
describe('agentEnvironment records every call of a multi-call turn', () => {
  for (const [perTurn, stream] of [
    [2, false],
    [3, true],
    [4, false],
  ] as const) {
    it(`Turn.action carries all ${perTurn} calls in order (stream: ${stream})`, async () => {
      const { t, ran } = await rollout(perTurn, { maxToolCalls: perTurn, maxTurns: 20 }, stream);
      expect(ran).toHaveLength(perTurn);
      const [first, second] = t.turns;
      const expected = Array.from({ length: perTurn }, (_, i) => ({ name: 'add', arguments: { a: 0, b: i + 1 } }));
      if (first!.action.kind !== 'tool') throw new Error(`expected a tool action, got ${first!.action.kind}`);
      expect(first!.action.calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments }))).toEqual(expected);
      expect(first!.action.call.function.arguments).toEqual({ a: 0, b: 1 });
      // the withheld second turn still records what the model sampled: all its calls
      if (second!.action.kind !== 'tool') throw new Error(`expected a tool action, got ${second!.action.kind}`);
      expect(second!.action.calls.map((c) => c.function.arguments)).toEqual(Array.from({ length: perTurn }, (_, i) => ({ a: 1, b: i + 1 })));
      expect(first!.observation?.map((m) => m.content)).toEqual(Array.from({ length: perTurn }, (_, i) => String(i + 1)));
    });
  }
});
