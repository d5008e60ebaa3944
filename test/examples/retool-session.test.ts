import { describe, expect, it } from 'vitest';
import type { ToolContext } from 'agentrl';
import { toolEnv } from '../../examples/retool/env.js';

const ctx = (): ToolContext => ({
  trajectoryId: 'q/0',
  groupIndex: 0,
  example: { id: 'q', question: 'q', answer: '1' },
  toolCalls: 0,
  maxToolResponseTokens: 100,
  countTokens: (s) => s.length,
  signal: new AbortController().signal,
  state: new Map(),
});
const call = (code: string) => {
  const c = { type: 'function' as const, function: { name: 'code_interpreter', arguments: { code } } };
  return { kind: 'tool' as const, content: '', raw: '', call: c, calls: [c] };
};

describe('ReTool example --session', () => {
  it('keeps variables between the tool calls of a trajectory (and not without the flag)', async () => {
    for (const session of [true, false]) {
      const env = toolEnv(1, { session });
      const c = ctx();
      try {
        await env.step(call('n = 6 * 7'), c);
        const out = await env.step(call('print(n)'), c);
        const text = out.done ? '' : out.observation[0]!.content;
        if (session) expect(text).toBe('42\n');
        else expect(text).toMatch(/NameError/);
        expect(env.tools[0]!.function.description).toMatch(session ? /kept/ : /starts fresh/);
      } finally {
        await env.endTrajectory?.(c);
        await env.close?.();
      }
    }
  }, 60_000);
});
