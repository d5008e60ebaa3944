import { afterAll, describe, expect, it } from 'vitest';
import { codeInterpreter, runRollouts, DEFAULT_BUDGETS, type Sandbox, type SandboxSession } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

/** Wraps a sandbox so the test sees how many sessions are open. */
function tracked(inner: Sandbox) {
  const open = new Set<SandboxSession>();
  const sandbox: Sandbox = {
    name: inner.name,
    supportsSessions: true,
    run: (r, s) => inner.run(r, s),
    close: () => inner.close(),
    openSession: async (o) => {
      const s = await inner.openSession!(o);
      open.add(s);
      return {
        run: (r, sig) => s.run(r, sig),
        close: async () => {
          open.delete(s);
          await s.close();
        },
      };
    },
  };
  return { sandbox, open };
}

describe("rollout engine × local sandbox, session: 'trajectory'", () => {
  const local = localSandbox({ workers: 2, timeoutMs: 5000 });
  afterAll(() => local.close());

  it('keeps each branch’s variables across its tool calls, apart from other branches, and closes every session at the end', async () => {
    const { sandbox, open } = tracked(local);
    const renderer = await localRenderer();
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt, sample }) => {
        const turn = prompt.split('<tool_call>').length - 1; // tool calls already made on this branch
        return turn === 0
          ? toolCall(`x = ${sample + 1}`)
          : turn === 1
            ? toolCall('x = x * 10\nimport math')
            : turn === 2
              ? toolCall('print(x, math.factorial(3))')
              : 'done \\boxed{1}';
      },
    });
    const env = codeInterpreter({ sandbox, session: 'trajectory', systemPrompt: null, timeoutMs: 5000 });
    const [group] = await runRollouts(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 200 } },
      [{ id: 'q', question: 'go', answer: '1' }],
      3,
    );
    expect(group!.map((t) => t.turns[2]!.observation![0]!.content)).toEqual(['10 6\n', '20 6\n', '30 6\n']);
    for (const t of group!) expect(t.stopReason).toBe('answer');
    expect(open.size).toBe(0);
  }, 60_000);

  it('closes the session when the trajectory fails (a throwing sampler ends it with stopReason error)', async () => {
    const { sandbox, open } = tracked(local);
    const renderer = await localRenderer();
    const sampler = scriptedSampler({
      renderer,
      script: ({ call }) => {
        if (call === 0) return toolCall('x = 1');
        throw new Error('sampler died');
      },
    });
    const env = codeInterpreter({ sandbox, session: 'trajectory', systemPrompt: null });
    const groups = await runRollouts({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, [{ id: 'q', question: 'go', answer: '1' }], 1);
    const t = groups[0]![0]!;
    expect(t.stopReason).toBe('error');
    expect(t.error?.message).toMatch(/sampler died/);
    expect(open.size).toBe(0);
  }, 60_000);
});
