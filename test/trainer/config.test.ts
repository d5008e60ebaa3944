import { describe, expect, it } from 'vitest';
import { ConfigError, Trainer, codeInterpreter, type Reward } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

async function baseOptions() {
  const renderer = await localRenderer();
  let sampled = 0;
  const sampler = scriptedSampler({ renderer, script: () => (sampled++, '\\boxed{1}') });
  const reward: Reward = () => ({ reward: 1, correct: true, validFormat: true });
  return {
    opts: {
      backend: mockBackend({ renderer, sampler }),
      env: codeInterpreter({ sandbox: fakeSandbox() }),
      reward,
      loss: { kind: 'ppo' as const, clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'a', question: 'q', answer: '1' }],
    },
    sampledCount: () => sampled,
  };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('Trainer config validation (before any rollout)', () => {
  it('rejects a negative group size, naming the field', async () => {
    const { opts, sampledCount } = await baseOptions();
    const e = configError(() => new Trainer({ ...opts, groupSize: -2 }));
    expect(e.issues.map((i) => i.path)).toContain('groupSize');
    expect(e.message).toMatch(/groupSize: .*-2/);
    expect(sampledCount()).toBe(0);
  });

  it('rejects reversed clip bounds', async () => {
    const { opts } = await baseOptions();
    const e = configError(() => new Trainer({ ...opts, loss: { kind: 'ppo', clipLow: 1.28, clipHigh: 0.8 } }));
    expect(e.issues.map((i) => i.path).sort()).toEqual(['loss.clipHigh', 'loss.clipLow']);
  });

  it('rejects an unknown loss kind and unknown keys, listing every problem at once', async () => {
    const { opts } = await baseOptions();
    const e = configError(() => new Trainer({ ...opts, loss: { kind: 'grpo' } as never, budgets: { maxTurn: 3 } as never, questionsPerBatch: 0 }));
    expect(e.message).toMatch(/^\d+ problems in Trainer options/);
    const paths = e.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['loss.kind', 'budgets.maxTurn', 'questionsPerBatch']));
    expect(e.issues.find((i) => i.path === 'budgets.maxTurn')?.message).toBe("unknown key (did you mean 'budgets.maxTurns'?)");
    expect(e.code).toBe('CONFIG_INVALID');
  });

  it('rejects a missing backend and an empty dataset', async () => {
    const { opts } = await baseOptions();
    const e = configError(() => new Trainer({ ...opts, backend: {} as never, dataset: [] }));
    expect(e.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['backend', 'dataset']));
  });

  it('fills in defaults and exposes the resolved config', async () => {
    const { opts } = await baseOptions();
    const t = new Trainer(opts);
    expect(t.options.groupSize).toBe(8);
    expect(t.options.budgets.maxToolCalls).toBe(4);
    expect(t.options.optimizer.learningRate).toBeGreaterThan(0);
  });
});
