const MARK = Symbol.for('agentrl.error');

/**
 * Root of every error agentrl throws. Match on `code` (a string literal per subclass) rather than
 * `instanceof` when two copies of agentrl may be installed; `AgentRLError.isInstance` works across copies.
 * Model mistakes are never errors (they are `invalid` actions or `ExecResult` statuses); these are
 * reserved for bad configuration, broken invariants and failing infrastructure. See `docs/errors.md`.
 */
export abstract class AgentRLError extends Error {
  abstract readonly code: string;
  readonly [MARK] = true;
  /** True when retrying the same operation may succeed (transport faults, 5xx, 429). */
  readonly retryable: boolean = false;
  static isInstance(e: unknown): e is AgentRLError {
    return typeof e === 'object' && e !== null && MARK in e;
  }
}
