import { describe, expect, it } from 'vitest';
import { codeInterpreter, runGroup, DEFAULT_BUDGETS, type Trajectory } from 'agentrl';
import { fakeSandbox, scriptedSampler, type Script } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

/** Branch behaviours, keyed by the sample index of the first (forking) call. */
const script: Script = ({ prompt, call, sample }) => {
  if (call === 0) {
    return (
      [toolCall('print(100)'), '\\boxed{7}', `${toolCall('print(1)')}${toolCall('print(2)')}`, toolCall('print(3)'), 'garbage <tool_call> {{{'][sample] ?? 'x'
    );
  }
  if (prompt.includes('print(100)')) return 'The answer is \\boxed{100}';
  if (prompt.includes('print(3)')) return toolCall('print(3)');
  return 'unexpected';
};

function assertTokenInvariants(t: Trajectory) {
  // Hazard: a next prompt that does not extend the previous one would train on tokens the model never saw.
  for (let k = 1; k < t.turns.length; k++) {
    const prev = t.turns[k - 1]!;
    const expectedPrefix = [...prev.promptTokens, ...prev.completionTokens];
    expect(t.turns[k]!.promptTokens.slice(0, expectedPrefix.length)).toEqual(expectedPrefix);
  }
  for (const turn of t.turns) expect(turn.logprobs.length).toBe(turn.completionTokens.length);
}

describe('rollout engine', () => {
  it('forks the group with one numSamples call, then advances each branch on its own', async () => {
    const renderer = await localRenderer();
    const calls: number[] = [];
    const inner = scriptedSampler({ renderer, script });
    const sampler = {
      ...inner,
      sample: (p: readonly number[], params: Parameters<typeof inner.sample>[1]) => (calls.push(params.numSamples ?? 1), inner.sample(p, params)),
    };
    const sandbox = fakeSandbox((req) => ({ stdout: req.code.replace(/print\((\d+)\)/, '$1') + '\n' }));
    const env = codeInterpreter({ sandbox, systemPrompt: null });
    const group = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 2, maxTurns: 6 } },
      { example: { id: 'q1', question: 'What is 10*10?', answer: '100' }, groupSize: 5 },
    );

    expect(calls[0]).toBe(5);
    expect(calls.slice(1).every((n) => n === 1)).toBe(true);
    expect(group.map((t) => t.groupIndex)).toEqual([0, 1, 2, 3, 4]);
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'answer', 'invalid', 'max_tool_calls', 'invalid']);
    expect(group[0]!.toolCalls).toBe(1);
    expect(group[0]!.turns[0]!.exec?.stdout).toBe('100\n');
    expect(group[0]!.finalText).toContain('\\boxed{100}');
    expect(group[2]!.turns[0]!.action).toMatchObject({ kind: 'invalid', reason: 'multiple_tool_calls' });
    expect(group[3]!.toolCalls).toBe(2);
    for (const t of group) assertTokenInvariants(t);
    // Each branch has its own message history (independent copies of the prompt state).
    expect(group[0]!.messages).not.toBe(group[1]!.messages);
    expect(group[1]!.messages.length).toBe(2);
  });

  it('ends a trajectory cleanly at its token budget, with a recorded stop reason', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => toolCall('print("' + 'y'.repeat(60) + '")') });
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const [t] = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 50, maxTurns: 50, maxTrajectoryTokens: 600 } },
      { example: { id: 'q', question: 'hi', answer: '1' }, groupSize: 1 },
    );
    expect(t!.stopReason).toBe('max_trajectory_tokens');
    const last = t!.turns[t!.turns.length - 1]!;
    expect(last.promptTokens.length + last.completionTokens.length).toBeLessThanOrEqual(600);
  });

  it('scores a turn cut at maxTurnTokens as truncated, never as a tool call', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => toolCall('print(1)') });
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const [t] = await runGroup(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxTurnTokens: 10 } },
      { example: { id: 'q', question: 'hi', answer: '1' }, groupSize: 1 },
    );
    expect(t!.stopReason).toBe('max_turn_tokens');
    expect(t!.turns[0]!.stopReason).toBe('length');
  });

  it('survives garbage model output: every trajectory ends, none throws', async () => {
    const renderer = await localRenderer();
    const junk = [
      '</tool_call>',
      '<tool_call><tool_call>',
      '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": ""}}\n</tool_call>',
      '\u0000\uFFFF',
      '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>',
      '',
    ];
    const sampler = scriptedSampler({ renderer, script: ({ sample }) => junk[sample % junk.length]! });
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const group = await runGroup(
      { sampler, renderer, env, budgets: DEFAULT_BUDGETS },
      { example: { id: 'q', question: 'hi', answer: '1' }, groupSize: junk.length },
    );
    expect(group.map((t) => t.stopReason)).toEqual(['invalid', 'invalid', 'invalid', 'answer', 'invalid', 'answer']);
    expect(group.map((t) => (t.turns[0]!.action.kind === 'invalid' ? t.turns[0]!.action.reason : t.turns[0]!.action.kind))).toEqual([
      'stray_tool_tag',
      'multiple_tool_calls',
      'empty_code',
      'answer',
      'unknown_tool',
      'answer',
    ]);
  });
});
