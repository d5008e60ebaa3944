import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.js';
import { resolveLocalOptions } from '../../../adapters/local/index.js';

describe('resolveLocalOptions', () => {
  it('fills documented defaults', () => {
    const o = resolveLocalOptions();
    expect(o.mode).toBe('fork-server');
    expect(o.python).toBe('/usr/bin/python3');
    expect(o.preload).toEqual(['math', 'itertools', 'fractions', 'numpy', 'sympy']);
    expect(o.network).toBe(false);
    expect(o.lightPreload).toEqual(['math', 'itertools', 'fractions', 'functools', 'collections', 'decimal', 're']);
    expect(resolveLocalOptions({ lightPreload: false }).lightPreload).toBe(false);
  });

  it('fills and checks the memory-control and session options', () => {
    const o = resolveLocalOptions();
    expect([o.memoryControl, o.sessionCpuSeconds]).toEqual(['auto', 600]);
    expect(resolveLocalOptions({ memoryControl: 'rlimit', sessionCpuSeconds: 5 })).toMatchObject({ memoryControl: 'rlimit', sessionCpuSeconds: 5 });
    expect(() => resolveLocalOptions({ memoryControl: 'cgroup' } as never)).toThrow(/memoryControl/);
    expect(() => resolveLocalOptions({ sessionCpuSeconds: 0 })).toThrow(/sessionCpuSeconds/);
  });

  it('rejects a light preload that is not a list of module names', () => {
    expect(() => resolveLocalOptions({ lightPreload: ['os; import x'] })).toThrow(ConfigError);
    expect(() => resolveLocalOptions({ lightPreload: true } as never)).toThrow(/lightPreload/);
  });

  it('rejects unknown keys and bad values with dotted paths', () => {
    // Hazard: a typo such as `timeout` silently leaving the 30 s default in place.
    try {
      resolveLocalOptions({ timeout: 5, workers: 0, network: true } as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toContain('workers');
      expect(paths).toContain('network');
      expect((e as ConfigError).message).toMatch(/timeout/);
    }
  });
});
