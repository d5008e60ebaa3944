import { afterAll, describe, expect, it } from 'vitest';
import { codeInterpreter, runRollouts, DEFAULT_BUDGETS } from 'agentrl';
import { localSandbox } from 'agentrl/adapters/local';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const CODES = ['print(6*7)', '1/0', 'while True: pass', 'import sympy\nprint(sympy.factorint(360))'];

/**
 * The rollout engine with the real local sandbox: successes, code errors and timeouts all come back as
 * observations, concurrently, and each branch continues from its own result.
 */
describe('rollout engine × local sandbox', () => {
  const sandbox = localSandbox({ workers: 2, timeoutMs: 1500 });
  afterAll(() => sandbox.close());

  it('turns successes, errors and timeouts into observations and keeps going', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({
      renderer,
      script: ({ call, sample, prompt }) =>
        call < 2 ? toolCall(CODES[sample % CODES.length]!) : prompt.includes('timed out') ? 'gave up \\boxed{0}' : 'done \\boxed{42}',
    });
    const env = codeInterpreter({ sandbox, systemPrompt: null, timeoutMs: 1500 });
    const [group] = await runRollouts(
      { sampler, renderer, env, budgets: { ...DEFAULT_BUDGETS, maxToolResponseTokens: 200 } },
      [{ id: 'q', question: 'go', answer: '42' }],
      CODES.length,
    );
    const first = group!.map((t) => t.turns[0]!);
    expect(first.map((t) => t.exec?.status)).toEqual(['ok', 'error', 'timeout', 'ok']);
    expect(first[0]!.observation![0]!.content).toBe('42\n');
    expect(first[1]!.observation![0]!.content).toMatch(/ZeroDivisionError/);
    expect(first[2]!.observation![0]!.content).toBe('Error: execution timed out after 2 seconds.');
    expect(first[3]!.observation![0]!.content).toMatch(/\{2: 3, 3: 2, 5: 1\}/);
    expect(first[2]!.exec!.wallMs).toBeLessThan(3000);
    for (const t of group!) expect(t.stopReason).toBe('answer');
    expect(group![2]!.finalText).toContain('gave up');
  });
});
