import { describe, expect, it } from 'vitest';
import { AgentRLError, ConfigError, SandboxTimeoutError, SandboxUnavailableError, PromptPrefixError } from 'agentrl';

/** Hazard: `SandboxTimeoutError.isInstance(aConfigError)` returning true would route a config mistake into a retry loop. */
describe('AgentRLError.isInstance', () => {
  const config = new ConfigError('Trainer options', [{ path: 'loss.clipHigh', message: 'expected a number > 1' }]);
  const timeout = new SandboxTimeoutError(1000);

  it('is true for the class itself and for the root, false for any other class', () => {
    expect(ConfigError.isInstance(config)).toBe(true);
    expect(AgentRLError.isInstance(config)).toBe(true);
    expect(SandboxTimeoutError.isInstance(config)).toBe(false);
    expect(SandboxUnavailableError.isInstance(timeout)).toBe(false);
    expect(PromptPrefixError.isInstance(timeout)).toBe(false);
    expect(SandboxTimeoutError.isInstance(timeout)).toBe(true);
  });

  it('is false for plain errors and non-errors', () => {
    for (const v of [new Error('x'), null, undefined, 'ConfigError', { code: 'CONFIG_INVALID' }]) {
      expect(AgentRLError.isInstance(v)).toBe(false);
      expect(ConfigError.isInstance(v)).toBe(false);
    }
  });

  it('recognises an error from another copy of agentrl by its markers, not by prototype', () => {
    // A structured clone keeps no prototype; the Symbol.for markers are what another copy would carry.
    const foreign = Object.assign(Object.create(Error.prototype) as object, {
      [Symbol.for('agentrl.error')]: true,
      [Symbol.for('agentrl.error.codes')]: ['CONFIG_INVALID'],
      code: 'CONFIG_INVALID',
    });
    expect(foreign instanceof ConfigError).toBe(false);
    expect(ConfigError.isInstance(foreign)).toBe(true);
    expect(SandboxTimeoutError.isInstance(foreign)).toBe(false);
  });

  it('narrows the type', () => {
    const e: unknown = timeout;
    if (SandboxTimeoutError.isInstance(e)) expect(e.timeoutMs).toBe(1000);
    else throw new Error('not narrowed');
  });
});
