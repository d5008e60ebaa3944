const MARK = Symbol.for('agentrl.error');
const CODES = Symbol.for('agentrl.error.codes');

/**
 * Root of every error agentrl throws. Each class has a literal `code` (`ConfigError.code === 'CONFIG_INVALID'`, on the
 * class and on every instance), which is its identity: it survives minifiers (which rename classes) and a second
 * installed copy of agentrl. Match on `e.code` — over {@link AgentRLErrorUnion} (from {@link isAgentRLError}) a
 * `switch (e.code)` narrows `e` to the class — or use `SomeError.isInstance(e)`, which works across copies and is true
 * only for that class and its subclasses (`SandboxTimeoutError.isInstance(aConfigError)` is false).
 * Model mistakes are never errors (they are `invalid` actions or `ExecResult` statuses); these are reserved for bad
 * configuration, broken invariants and failing infrastructure. See `docs/errors.md`.
 * @typeParam C - the literal code of the class.
 */
export abstract class AgentRLError<C extends string = string> extends Error {
  /** Stable identifier of the error class, e.g. `'CONFIG_INVALID'` (survives minifying, unlike `constructor.name`). */
  abstract readonly code: C;
  /** Marks agentrl errors across installed copies of agentrl (read by `isInstance`). */
  readonly [MARK] = true;
  /** Codes of this error's classes, most derived first (the cross-copy marker behind `isInstance`). */
  readonly [CODES]: readonly string[];
  /** True when retrying the same operation may succeed (transport faults, 5xx, 429). */
  readonly retryable: boolean = false;

  /** `message` and `options` (`cause`) as for `Error`. */
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    const codes: string[] = [];
    for (let c: unknown = new.target; c && c !== AgentRLError; c = Object.getPrototypeOf(c)) {
      const code = Object.hasOwn(c as object, 'code') ? (c as { code?: unknown }).code : undefined;
      if (typeof code === 'string') codes.push(code);
    }
    this[CODES] = codes;
  }

  /**
   * True when `e` is an agentrl error of this class (or a subclass), also when it comes from another installed copy
   * of agentrl: the check compares the class's static `code` with the codes the error carries, never class names.
   * `AgentRLError.isInstance(e)` is true for every agentrl error. A subclass without a static `code` falls back to
   * `instanceof`.
   */
  static isInstance<T extends AgentRLError>(this: abstract new (...args: never[]) => T, e: unknown): e is T {
    if (typeof e !== 'object' || e === null || !(MARK in e)) return false;
    // biome-ignore-start lint/complexity/noThisInStatic: `this` is the class isInstance is called on (a subclass), not AgentRLError
    if ((this as unknown) === AgentRLError) return true;
    const own = Object.hasOwn(this, 'code') ? (this as unknown as { code?: unknown }).code : undefined;
    if (typeof own !== 'string') return e instanceof this;
    // biome-ignore-end lint/complexity/noThisInStatic: see above
    const codes = (e as { [CODES]?: readonly string[] })[CODES];
    return Array.isArray(codes) && codes.includes(own);
  }
}
