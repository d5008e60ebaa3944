import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { parseLossConfig } from '../../src/loss/index.js';

function issues(input: unknown): string[] {
  try {
    parseLossConfig(input);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
}

describe('loss kinds a Tinker engine names but agentrl cannot define', () => {
  it("'stable_reinforce' is a ConfigError that says why (formula and sequence-id wire not public), with or without options", () => {
    // Hazard: a user who read the hosted Tinker docs gets "expected kind …" and tries spellings, or worse, a look-alike.
    for (const input of [{ kind: 'stable_reinforce' }, { kind: 'stable_reinforce', aggregation: 'token-sum' }]) {
      const [issue, ...rest] = issues(input);
      expect(rest).toEqual([]);
      expect(issue).toMatch(/^loss\.kind: kind 'stable_reinforce' is not available: /);
      expect(issue).toContain('not published');
      expect(issue).toContain('sequence_id');
      expect(issue).toContain("'ppo' | 'importance_sampling'");
    }
  });

  it('other unknown kinds keep the plain message; near-misses of the name are not special-cased', () => {
    expect(issues({ kind: 'StableReinforce' })[0]).toMatch(/^loss\.kind: expected kind 'ppo'/);
    expect(issues({ kind: 'stable-reinforce' })[0]).toMatch(/^loss\.kind: expected kind 'ppo'/);
  });
});
