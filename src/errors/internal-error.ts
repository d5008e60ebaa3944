import { AgentRLError } from './base.js';

/**
 * A broken internal invariant of agentrl: a state its own code should never reach (an unhandled variant of a union,
 * an operation code its own worker never sends). Always a bug in agentrl, never a user's mistake: report it.
 * Thrown only through {@link unreachable} and {@link invariant}.
 */
export class InternalError extends AgentRLError {
  /** Stable identifier of this error class (`'INTERNAL'`), kept by minifiers: match on it. */
  static readonly code = 'INTERNAL' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'INTERNAL' as const;
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InternalError';
  }
}

/**
 * Exhaustiveness guard for `switch` statements over discriminated unions: the `default` branch calls it, so a new
 * member breaks the build there; at run time (a value the types ruled out) it throws.
 * @param what - what was switched on, for the message, e.g. `'loss kind'` → `unhandled loss kind: "x"`.
 * @throws InternalError always.
 */
export function unreachable(value: never, what: string): never {
  throw new InternalError(`unhandled ${what}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

/**
 * Asserts an internal invariant (something agentrl's own code guarantees, not an input check).
 * @throws InternalError with `message` when `condition` is falsy.
 */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InternalError(message);
}
