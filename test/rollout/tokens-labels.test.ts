import { describe, expect, it } from 'vitest';
import {
  codeInterpreter,
  runGroup,
  DEFAULT_BUDGETS,
  rolloutMetrics,
  MAX_BYTES_PER_TOKEN,
  type Environment,
  type Trajectory,
  type Turn,
} from 'agentrl/internal';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const ex = { id: 'q', question: 'hi', answer: '1' };

describe('a turn cut inside a tool call', () => {
  // Hazard (issue 13 §5): an unclosed block read as `stray_tool_tag`, a malformed call the policy was blamed for.
  it('is labelled truncated, not stray_tool_tag, and is not a malformed call', async () => {
    const renderer = await localRenderer();
    const long = toolCall(`print("${'z'.repeat(200)}")`);
    const sampler = scriptedSampler({ renderer, script: ({ call }) => (call === 0 ? toolCall('print(1)') : long) });
    const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '1\n' })), systemPrompt: null });
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurnTokens: 60 } }, { example: ex, groupSize: 1 });
    expect(t!.turns).toHaveLength(2);
    expect(t!.turns[1]!.stopReason).toBe('length');
    expect(t!.turns[1]!.action).toMatchObject({ kind: 'invalid', reason: 'truncated' });
    expect(t!.stopReason).toBe('max_turn_tokens');
    // One valid call, one cut turn: the valid rate is 1, not 1/2.
    const m = rolloutMetrics([{ trajectories: [t!], rewards: [{ reward: -1, correct: false, validFormat: false }], degenerate: false }]);
    expect(m['rollout/valid_tool_call_rate']).toBe(1);
  });

  it('labels a cut whose half-written call is already malformed as truncated too', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => `<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "${'w'.repeat(100)}` });
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurnTokens: 30 } }, { example: ex, groupSize: 1 });
    expect(t!.turns[0]!.action).toMatchObject({ kind: 'invalid', reason: 'truncated' });
  });
});

describe('tool output is bounded for every environment', () => {
  it("cuts a custom environment's 200 KB observation to the budget, keeping its size", async () => {
    const renderer = await localRenderer();
    const big = 'line of output\n'.repeat(13_334).slice(0, 200_000);
    const env: Environment = {
      name: 'custom',
      tools: codeInterpreter({ sandbox: fakeSandbox() }).tools,
      initialMessages: (e) => [{ role: 'user', content: e.question }],
      step: async (action) => (action.kind === 'tool' ? { done: false, observation: [{ role: 'tool', content: big }] } : { done: true }),
    };
    const sampler = scriptedSampler({ renderer, script: ({ call }) => (call === 0 ? toolCall('print(1)') : '\\boxed{1}') });
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 64 } }, { example: ex, groupSize: 1 });
    const turn = t!.turns[0]!;
    expect(turn.observationBytes).toBe(200_000);
    const content = turn.observation![0]!.content;
    expect(renderer.countObservationTokens?.(content) ?? renderer.encode(content).length).toBeLessThanOrEqual(64);
    // The trajectory holds only what the model saw.
    const toolMsgs = t!.messages.filter((m) => m.role === 'tool');
    expect(toolMsgs.map((m) => m.content)).toEqual([content]);
    expect(t!.turns[1]!.promptTokens.length).toBeLessThan(400);
  });

  it('caps the raw execution output kept in the trajectory', async () => {
    const renderer = await localRenderer();
    const big = '0123456789'.repeat(20_000);
    const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: big })), systemPrompt: null });
    const sampler = scriptedSampler({ renderer, script: ({ call }) => (call === 0 ? toolCall('print(1)') : '\\boxed{1}') });
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 32 } }, { example: ex, groupSize: 1 });
    const turn = t!.turns[0]!;
    expect(turn.exec!.stdout.length).toBeLessThanOrEqual(32 * MAX_BYTES_PER_TOKEN);
    expect(turn.exec!.truncated).toBe(true);
    expect(turn.observationBytes).toBe(200_000);
  });
});

describe('sandbox/latency_ms', () => {
  const turn = (over: Partial<Turn>): Turn => ({
    promptTokens: [1],
    completionTokens: [2],
    logprobs: [0],
    text: '',
    stopReason: 'stop',
    action: {
      kind: 'tool',
      content: '',
      raw: '',
      call: { type: 'function', function: { name: 'code_interpreter', arguments: { code: 'x' } } },
      calls: [{ type: 'function', function: { name: 'code_interpreter', arguments: { code: 'x' } } }],
    },
    ...over,
  });
  const traj = (turns: Turn[], stopReason: Trajectory['stopReason']): Trajectory => ({
    id: 'q/0',
    example: ex,
    groupIndex: 0,
    messages: [],
    turns,
    stopReason,
    toolCalls: 1,
    finalText: '',
  });

  it('averages only the calls that ran', () => {
    const ran = turn({
      toolMs: 100,
      observation: [{ role: 'tool', content: 'ok' }],
      exec: { status: 'ok', exitCode: 0, stdout: 'ok', stderr: '', truncated: false, wallMs: 90 },
    });
    const refused = turn({}); // cut by maxToolCalls: never ran
    const ended = turn({ toolMs: 3 }); // the environment ended the episode instead of running it
    const m = rolloutMetrics([
      {
        trajectories: [traj([ran, refused], 'max_tool_calls'), traj([ended], 'env_done')],
        rewards: [
          { reward: 0, correct: false, validFormat: false },
          { reward: 0, correct: false, validFormat: false },
        ],
        degenerate: false,
      },
    ]);
    expect(m['sandbox/latency_ms']).toBe(100);
  });
});
