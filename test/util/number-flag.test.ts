import { describe, expect, it } from 'vitest';
import { parseNumberFlag } from '../../src/util/number-flag.js';
import { UsageError } from '../../src/errors/usage-error.js';
import { AgentRLError } from '../../src/errors/base.js';
import { isUsageFailure } from '../../apps/cli/usage.js';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(UsageError.isInstance(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

describe('parseNumberFlag: the one number-flag parser of the CLI', () => {
  it('absent is undefined; a number literal is its value', () => {
    expect(parseNumberFlag('n', undefined)).toBeUndefined();
    expect(parseNumberFlag('n', '2.5')).toBe(2.5);
    expect(parseNumberFlag('n', ' 1e3 ', { integer: true })).toBe(1000);
    expect(parseNumberFlag('port', '0', { integer: true, min: 0, max: 65535 })).toBe(0);
  });

  it('an empty or blank value is refused, not read as 0', () => {
    // Hazard: Number('') === 0, so `--port ''` used to bind a random port and `--seed ''` used seed 0.
    for (const raw of ['', '  '])
      expect(message(() => parseNumberFlag('port', raw, { integer: true, min: 0, max: 65535 }))).toBe(`--port expects an integer in [0, 65535], got '${raw}'`);
  });

  it('refuses non-numbers, non-strings and values outside the rule, naming the flag and the value', () => {
    for (const raw of ['x', '1e', 'NaN', 'Infinity']) expect(message(() => parseNumberFlag('workers', raw))).toBe(`--workers expects a number, got '${raw}'`);
    expect(message(() => parseNumberFlag('bind', ['1']))).toBe("--bind expects a number, got '1'");
    expect(message(() => parseNumberFlag('n', '2.5', { integer: true, min: 1 }))).toBe("--n expects an integer ≥ 1, got '2.5'");
    expect(message(() => parseNumberFlag('n', '0', { integer: true, min: 1 }))).toBe("--n expects an integer ≥ 1, got '0'");
    expect(message(() => parseNumberFlag('max-bytes', '0', { integer: true, above: 0 }))).toBe("--max-bytes expects a positive integer, got '0'");
    expect(message(() => parseNumberFlag('t', '-1', { min: 0 }))).toBe("--t expects a number ≥ 0, got '-1'");
    expect(message(() => parseNumberFlag('s', '90000', { min: 1, max: 86_400, expects: 'seconds in [1, 86400]' }))).toBe(
      "--s expects seconds in [1, 86400], got '90000'",
    );
  });

  it('its error is an AgentRLError with code USAGE_INVALID, which the CLI answers with exit code 2', () => {
    const e = new UsageError('--x expects a number');
    expect(AgentRLError.isInstance(e)).toBe(true);
    expect(e.code).toBe('USAGE_INVALID');
    expect(UsageError.code).toBe('USAGE_INVALID');
    expect(isUsageFailure(e)).toBe(true);
    expect(isUsageFailure(Object.assign(new TypeError('Unknown option'), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }))).toBe(true);
    expect(isUsageFailure(new Error('ECONNREFUSED'))).toBe(false);
  });
});
