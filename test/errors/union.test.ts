import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as agentrl from 'agentrl';
import { AgentRLError, ConfigError, SandboxTimeoutError, isAgentRLError } from 'agentrl';

/** Every error class the package exports (subclasses of AgentRLError, the base and deprecated aliases excepted). */
const exportedClasses = Object.entries(agentrl).filter(
  ([name, v]) => typeof v === 'function' && v.prototype instanceof AgentRLError && name !== 'TemplateRewriteError',
) as [string, typeof AgentRLError & { code?: unknown }][];

describe('error identity by code', () => {
  it("every exported error class has its own literal static code, unique, equal to its instances' code", () => {
    expect(exportedClasses.length).toBeGreaterThan(25);
    const codes = exportedClasses.map(([name, C]) => {
      expect(Object.hasOwn(C, 'code'), name).toBe(true);
      expect(C.code, name).toMatch(/^[A-Z][A-Z_]+$/);
      return C.code;
    });
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('the AgentRLErrorUnion lists exactly the exported error classes', () => {
    // Hazard: a new error class that switch (e.code) over the union cannot see.
    const src = readFileSync('src/errors/union.ts', 'utf8');
    const body = src.slice(src.indexOf('export type AgentRLErrorUnion'), src.indexOf('/** The `code` of any agentrl error'));
    const listed = [...body.matchAll(/\|\s*(\w+)/g)].map((m) => m[1]).sort();
    expect(listed).toEqual(exportedClasses.map(([name]) => name).sort());
  });

  it('isAgentRLError is true for agentrl errors (also from another copy) and false otherwise', () => {
    expect(isAgentRLError(new SandboxTimeoutError(5))).toBe(true);
    expect(isAgentRLError(new ConfigError('x', []))).toBe(true);
    const foreign = Object.assign(Object.create(Error.prototype) as object, {
      [Symbol.for('agentrl.error')]: true,
      [Symbol.for('agentrl.error.codes')]: ['SANDBOX_TIMEOUT'],
      code: 'SANDBOX_TIMEOUT',
    });
    expect(isAgentRLError(foreign)).toBe(true);
    for (const v of [new Error('x'), { code: 'SANDBOX_TIMEOUT' }, null, 'CONFIG_INVALID', 3]) expect(isAgentRLError(v)).toBe(false);
  });

  it('isInstance does not depend on class names (a minifier renames them)', () => {
    // Hazard: identity from constructor.name: after minifying, two classes may share a name or lose it.
    const e = new SandboxTimeoutError(5);
    for (const C of [SandboxTimeoutError, ConfigError]) Object.defineProperty(C, 'name', { value: 'a', configurable: true });
    try {
      expect(SandboxTimeoutError.isInstance(new SandboxTimeoutError(6))).toBe(true);
      expect(SandboxTimeoutError.isInstance(e)).toBe(true);
      expect(ConfigError.isInstance(e)).toBe(false);
      expect(SandboxTimeoutError.isInstance(new ConfigError('x', []))).toBe(false);
    } finally {
      Object.defineProperty(SandboxTimeoutError, 'name', { value: 'SandboxTimeoutError', configurable: true });
      Object.defineProperty(ConfigError, 'name', { value: 'ConfigError', configurable: true });
    }
  });
});
