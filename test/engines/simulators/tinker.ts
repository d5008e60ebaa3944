/**
 * Hosted Tinker as the official SDK 0.25 and the public docs describe it: the semantics agentrl serve implements
 * (token-sum losses, every Adam field, frozen samplers, `{error, category}` failures); polls answer `try_again`.
 * Nothing here differs from agentrl serve but the hold, so this simulator is the control of the others.
 */
import type { EngineSpec } from './simulator.js';

/** The hosted-Tinker simulator. */
export const tinker: EngineSpec = {
  hold: { ms: 45_000, answer: 'try_again' },
  make() {
    return {
      error: (status, message, where) =>
        where === 'future' ? { status: 200, body: { error: message, category: 'user' } } : { status, body: { error: message, category: 'user' } },
    };
  },
};
