const MARK = Symbol.for('agentrl.error');
const CLASSES = Symbol.for('agentrl.error.classes');

/**
 * Root of every error agentrl throws. Match on `code` (a string literal per subclass) rather than
 * `instanceof` when two copies of agentrl may be installed: `SomeError.isInstance(e)` works across copies and
 * is true only for that class and its subclasses (`SandboxTimeoutError.isInstance(aConfigError)` is false).
 * Model mistakes are never errors (they are `invalid` actions or `ExecResult` statuses); these are
 * reserved for bad configuration, broken invariants and failing infrastructure. See `docs/errors.md`.
 */
export abstract class AgentRLError extends Error {
  /** Stable identifier of the error class, e.g. `'CONFIG_INVALID'` (survives minifying, unlike `constructor.name`). */
  abstract readonly code: string;
  /** Marks agentrl errors across installed copies of agentrl (read by `isInstance`). */
  readonly [MARK] = true;
  /** Names of this error's classes, most derived first (the cross-copy marker behind `isInstance`). */
  readonly [CLASSES]: readonly string[];
  /** True when retrying the same operation may succeed (transport faults, 5xx, 429). */
  readonly retryable: boolean = false;

  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  /** `message` and `options` (`cause`) as for `Error`. */
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    const names: string[] = [];
    for (let p: unknown = new.target.prototype; p && p !== AgentRLError.prototype; p = Object.getPrototypeOf(p)) {
      names.push((p as { constructor: { name: string } }).constructor.name);
    }
    this[CLASSES] = names;
  }

  /**
   * True when `e` is an agentrl error of this class (or a subclass), also when it comes from another installed copy
   * of agentrl. `AgentRLError.isInstance(e)` is true for every agentrl error.
   */
  static isInstance<T extends AgentRLError>(this: abstract new (...args: never[]) => T, e: unknown): e is T {
    if (typeof e !== 'object' || e === null || !(MARK in e)) return false;
    if ((this as unknown) === AgentRLError) return true;
    const classes = (e as { [CLASSES]?: readonly string[] })[CLASSES];
    return Array.isArray(classes) && classes.includes(this.name);
  }
}
