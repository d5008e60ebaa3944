import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { codeInterpreter, defineTool, runGroup, toolEnvironment, DEFAULT_BUDGETS, buildDatum, rolloutMetrics, type Environment } from 'agentrl/internal';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';
import { withCallIds } from '../../src/env/parallel-calls.js';
import { loadRenderer } from '../../src/chat/load-renderer.js';
import { standInFiles } from '../chat/families/real-renderers.js';

const ex = { id: 'q', question: 'Compare.', answer: 'x' };
const lookup = (name: string, q: string) => `<tool_call>\n${JSON.stringify({ name, arguments: { q } })}\n</tool_call>`;

/** A tool whose calls finish in reverse order of their delay, and that records how many run at once. */
function slowTool() {
  let inFlight = 0;
  let maxInFlight = 0;
  const tool = defineTool({
    name: 'lookup',
    description: 'Looks a word up.',
    inputSchema: z.object({ q: z.string() }),
    execute: async ({ q }) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, q.length * 15));
      inFlight--;
      return `def(${q})`;
    },
  });
  return { tool, maxInFlight: () => maxInFlight };
}

describe('parallel tool calls through the rollout engine (embedded renderer, scripted sampler)', () => {
  it('runs every call of a turn concurrently, answers each with its own tool message in call order, and trains only sampled tokens', async () => {
    const renderer = await localRenderer();
    const { tool, maxInFlight } = slowTool();
    const env = toolEnvironment({ name: 'dict', tools: [tool], parallelToolCalls: true, initialMessages: (e) => [{ role: 'user', content: e.question }] });
    // The first call is the slowest: results must still come back in call order.
    const sampler = scriptedSampler({
      renderer,
      script: ({ call }) => (call === 0 ? `Both.\n${lookup('lookup', 'aaaaaa')}\n${lookup('lookup', 'b')}` : 'done'),
    });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('answer');
    expect(t!.toolCalls).toBe(2);
    const first = t!.turns[0]!;
    expect(first.action).toMatchObject({
      kind: 'tool',
      content: 'Both.',
      calls: [{ function: { arguments: { q: 'aaaaaa' } } }, { function: { arguments: { q: 'b' } } }],
    });
    expect(first.observation!.map((m) => m.content)).toEqual(['def(aaaaaa)', 'def(b)']);
    expect(maxInFlight()).toBe(2);
    // The second prompt holds both tool responses, in order, after the sampled call tokens.
    const second = renderer.decode(t!.turns[1]!.promptTokens);
    expect(second.indexOf('def(aaaaaa)')).toBeGreaterThan(0);
    expect(second.indexOf('def(aaaaaa)')).toBeLessThan(second.indexOf('def(b)'));
    expect(t!.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    const d = buildDatum(t!, 1);
    const sampled = t!.turns.flatMap((u) => u.completionTokens);
    expect(d.targetTokens.filter((_, i) => d.mask[i] === 1)).toEqual(sampled);
    const m = rolloutMetrics([{ trajectories: [t!], rewards: [{ reward: 1, correct: true, validFormat: true }], degenerate: false }]);
    expect(m['rollout/calls_per_tool_turn']).toBe(2);
    expect(m['rollout/tool_calls']).toBe(2);
  });

  it('bounds the calls in flight (maxConcurrentCalls)', async () => {
    const renderer = await localRenderer();
    const { tool, maxInFlight } = slowTool();
    const env = toolEnvironment({
      name: 'dict',
      tools: [tool],
      parallelToolCalls: true,
      maxConcurrentCalls: 2,
      initialMessages: (e) => [{ role: 'user', content: e.question }],
    });
    const four = ['aaa', 'bb', 'cccc', 'd'].map((q) => lookup('lookup', q)).join('\n');
    const sampler = scriptedSampler({ renderer, script: ({ call }) => (call === 0 ? four : 'done') });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.turns[0]!.observation!.map((m) => m.content)).toEqual(['def(aaa)', 'def(bb)', 'def(cccc)', 'def(d)']);
    expect(maxInFlight()).toBe(2);
  });

  it('budgets count every call: a turn whose calls would pass maxToolCalls does not run', async () => {
    const renderer = await localRenderer();
    const { tool } = slowTool();
    const env = toolEnvironment({ name: 'dict', tools: [tool], parallelToolCalls: true, initialMessages: (e) => [{ role: 'user', content: e.question }] });
    const two = `${lookup('lookup', 'a')}\n${lookup('lookup', 'b')}`;
    const sampler = scriptedSampler({ renderer, script: () => two });
    const [t] = await runGroup({ sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 3, maxTurns: 10 } }, { example: ex, groupSize: 1 });
    expect(t!.stopReason).toBe('max_tool_calls');
    expect(t!.toolCalls).toBe(2); // 2 ran; the next 2 would make 4 > 3
    expect(t!.turns).toHaveLength(2);
    expect(t!.turns[1]!.observation).toBeUndefined();
  });

  it('off by default: the code interpreter keeps the ReTool recipe rule (two calls are multiple_tool_calls)', async () => {
    const renderer = await localRenderer();
    const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '1\n' })), systemPrompt: null });
    const sampler = scriptedSampler({ renderer, script: () => `${toolCall('print(1)')}\n${toolCall('print(2)')}` });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.turns[0]!.action).toMatchObject({ kind: 'invalid', reason: 'multiple_tool_calls' });
    expect(t!.stopReason).toBe('invalid');
  });

  it('codeInterpreter({ parallelToolCalls: true }) runs each block and checks every call (blank code in any is empty_code)', async () => {
    const renderer = await localRenderer();
    const env: Environment = codeInterpreter({ sandbox: fakeSandbox((req) => ({ stdout: `ran ${req.code}\n` })), systemPrompt: null, parallelToolCalls: true });
    const sampler = scriptedSampler({ renderer, script: ({ call }) => (call === 0 ? `${toolCall('print(1)')}\n${toolCall('print(2)')}` : 'done') });
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.turns[0]!.observation!.map((m) => m.content)).toEqual(['ran print(1)\n', 'ran print(2)\n']);
    const bad = scriptedSampler({ renderer, script: () => `${toolCall('print(1)')}\n${toolCall('  ')}` });
    const [u] = await runGroup({ sampler: bad, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(u!.turns[0]!.action).toMatchObject({ kind: 'invalid', reason: 'empty_code' });
  });
});

describe('withCallIds: every tool message answers its call by id (Kimi K2-style templates)', () => {
  const c = (name: string, id?: string) => ({ ...(id !== undefined ? { id } : {}), type: 'function' as const, function: { name, arguments: {} } });
  const tool = (content: string, toolCallId?: string) => ({ role: 'tool' as const, name: 'f', content, ...(toolCallId !== undefined ? { toolCallId } : {}) });
  const act = (...calls: ReturnType<typeof c>[]) => ({ kind: 'tool' as const, content: '', raw: '', call: calls[0]!, calls });

  it('one call, several calls, and the environment’s own ids', () => {
    expect(withCallIds(act(c('f', 'functions.f:0')), [tool('1')])).toEqual([tool('1', 'functions.f:0')]);
    expect(withCallIds(act(c('f', 'a'), c('g', 'b')), [tool('1'), { role: 'user', content: 'note' }, tool('2')])).toEqual([
      tool('1', 'a'),
      { role: 'user', content: 'note' },
      tool('2', 'b'),
    ]);
    expect(withCallIds(act(c('f', 'a'), c('g', 'b')), [tool('1', 'mine'), tool('2')])).toEqual([tool('1', 'mine'), tool('2', 'b')]);
    expect(withCallIds(act(c('f', 'a'), c('g')), [tool('1'), tool('2')])).toEqual([tool('1', 'a'), tool('2')]);
  });

  it('leaves the observation alone without ids, when messages and calls do not pair up, or for other actions', () => {
    const obs = [tool('1'), tool('2')];
    expect(withCallIds(act(c('f'), c('g')), obs)).toBe(obs);
    expect(withCallIds(act(c('f', 'a')), obs)).toBe(obs);
    expect(withCallIds({ kind: 'answer', content: 'x', raw: 'x' }, obs)).toBe(obs);
  });

  it('a custom environment that writes no ids: the rollout still answers the call by id', async () => {
    // Kimi K2's format on the stand-in folder (its calls carry ids); the environment answers without one.
    const env: Environment = {
      name: 'custom',
      tools: [{ type: 'function', function: { name: 'f', description: 'F.', parameters: { type: 'object', properties: {} } } }],
      initialMessages: (e) => [{ role: 'user', content: e.question }],
      async step(action) {
        if (action.kind !== 'tool') return { done: true, reason: 'answer' };
        return { done: false, observation: [{ role: 'tool', content: 'ok' }] };
      },
    };
    const kimi = await loadRenderer({ ...standInFiles('kimi_k2') });
    const sampler = scriptedSampler({
      renderer: kimi,
      script: ({ call }) =>
        call === 0
          ? '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>'
          : 'done',
    });
    const [t] = await runGroup({ sampler, renderer: kimi, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.turns[0]!.observation).toEqual([{ role: 'tool', content: 'ok', toolCallId: 'functions.f:0' }]);
    expect(kimi.decode(t!.turns[1]!.promptTokens)).toContain('## Return of functions.f:0\nok');
  });
});
