import { describe, expect, it } from 'vitest';
import { ConfigError, Trainer, codeInterpreter, localBackend, type Reward } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

async function base() {
  const renderer = await localRenderer();
  const reward: Reward = () => ({ reward: 1, correct: true, validFormat: true });
  return {
    backend: mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '1' }) }),
    env: codeInterpreter({ sandbox: fakeSandbox() }),
    reward,
    loss: { kind: 'ppo' as const, clipLow: 0.8, clipHigh: 1.28 },
    dataset: [{ id: 'a', question: 'q', answer: '1' }],
  };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(ConfigError.isInstance(e)).toBe(true);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const issue = (e: ConfigError, path: string) => e.issues.find((i) => i.path === path)?.message;

describe('config errors: one wording, suggestions for unknown keys', () => {
  it('optimizer.lr suggests optimizer.learningRate; top-level temperature suggests sampling.temperature', async () => {
    const opts = await base();
    const e = configError(() => new Trainer({ ...opts, optimizer: { lr: 1e-3 } as never, temperature: 0.7 } as never));
    expect(issue(e, 'optimizer.lr')).toBe("unknown key (did you mean 'optimizer.learningRate'?)");
    expect(issue(e, 'temperature')).toBe("unknown key (did you mean 'sampling.temperature'?)");
    // learningRate is required once `optimizer` is given: reported in the same pass, in the same wording.
    expect(issue(e, 'optimizer.learningRate')).toMatch(/^missing \(expected/);
  });

  it('typos get the closest key: grupSize → groupSize, max_steps → maxSteps; unrelated names get no guess', async () => {
    const opts = await base();
    const e = configError(() => new Trainer({ ...opts, grupSize: 4, max_steps: 3, zzzzzz: 1 } as never));
    expect(issue(e, 'grupSize')).toBe("unknown key (did you mean 'groupSize'?)");
    expect(issue(e, 'max_steps')).toBe("unknown key (did you mean 'maxSteps'?)");
    expect(issue(e, 'zzzzzz')).toBe('unknown key');
  });

  it('missing and mistyped values read "missing (expected …)" / "expected …, got …", never raw zod phrases', async () => {
    const { reward: _r, env: _e, ...rest } = await base();
    const e = configError(() => new Trainer({ ...rest, groupSize: 'eight', maxSteps: 0, shuffle: 'yes', advantage: { normalize: 'z' } } as never));
    expect(issue(e, 'reward')).toBe('missing (expected a reward function)');
    expect(issue(e, 'env')).toBe('missing (expected an Environment)');
    expect(issue(e, 'groupSize')).toBe('expected a number, got "eight"');
    expect(issue(e, 'maxSteps')).toBe('expected an integer ≥ 1, got 0');
    expect(issue(e, 'shuffle')).toBe('expected a boolean, got "yes"');
    expect(issue(e, 'advantage.normalize')).toBe('expected one of "none", "std", "rloo", got "z"');
    expect(e.message).not.toMatch(/received|Invalid input|undefined, got undefined/);
  });
});

describe('localBackend reports every problem in one pass', () => {
  it('schema problems, an unknown key and dModel not divisible by heads, together', () => {
    const e = configError(() => localBackend({ layers: 0, dModel: 30, heads: 4, contextTokns: 64 } as never));
    expect(e.issues.map((i) => i.path).sort()).toEqual(['contextTokns', 'dModel', 'layers']);
    expect(issue(e, 'contextTokns')).toBe("unknown key (did you mean 'contextTokens'?)");
    expect(issue(e, 'layers')).toBe('expected a number ≥ 1, got 0');
    expect(issue(e, 'dModel')).toBe('must be divisible by heads (4), got 30');
  });
});
