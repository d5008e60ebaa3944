import { describe, expect, it } from 'vitest';
import { codeInterpreter, runGroup, DEFAULT_BUDGETS, type Environment, type Example, type Trajectory } from 'agentrl';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const ex: Example = { id: 'q', question: 'question q', answer: '1' };

describe('runGroup reports each trajectory as soon as it is final (onTrajectoryEnd)', () => {
  it('reports a finished branch before its group ends, and a failed one only after its last retry', async () => {
    // Hazard: scoring waits for the whole group; or a trajectory that is going to be retried gets scored (and trained) too.
    const renderer = await localRenderer();
    // Branch 0 answers at once; the others call the tool with print(<sample>) first. Retries sample index 0 again.
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt, call, sample }) => (call === 0 && sample > 0 && !prompt.includes('<tool_response>') ? toolCall(`print(${sample})`) : '\\boxed{1}'),
    });
    let failures = 0;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const env: Environment = {
      ...inner,
      async step(action, ctx) {
        if (action.kind === 'tool' && action.call.function.arguments['code'] === 'print(1)' && failures++ === 0) throw new Error('flaky');
        if (action.kind === 'tool' && action.call.function.arguments['code'] === 'print(2)') await slow;
        return inner.step(action, ctx);
      },
    };
    const reported: Trajectory[] = [];
    const done = runGroup(
      {
        sampler,
        renderer,
        env,
        budgets: { ...DEFAULT_BUDGETS, maxToolCalls: 3 },
        failure: { kind: 'retry', maxRetries: 1 },
        onTrajectoryEnd: (t) => {
          reported.push(t);
          if (t.groupIndex === 0) release(); // branch 2 ends only after branch 0 was reported
        },
      },
      { example: ex, groupSize: 3 },
    );
    const group = await done;
    expect(reported[0]!.groupIndex).toBe(0);
    expect(reported.filter((t) => t.stopReason === 'error')).toEqual([]); // the flaky failure was retried, not reported
    expect(reported.map((t) => t.groupIndex).sort()).toEqual([0, 1, 2]);
    expect(group.every((t) => reported.includes(t))).toBe(true);
  });
});
