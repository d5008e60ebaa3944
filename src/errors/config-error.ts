import { AgentRLError } from './base.js';

/** One problem found in a configuration object. `path` is dotted, e.g. `loss.clipHigh`. */
export interface ConfigIssue {
  /** Dotted path of the offending key, e.g. `loss.clipHigh` (empty for the object itself). */
  readonly path: string;
  /** What is wrong, e.g. `expected a number > 1, got 0.28`. */
  readonly message: string;
}

/**
 * Invalid options, reported before any work starts. Lists every issue with its dotted path:
 * ```text
 * ConfigError: 2 problems in Trainer options
 *   - loss.clipHigh: expected a number > 1, got 0.28
 *   - budgets.maxTurn: unknown key
 * ```
 */
export class ConfigError extends AgentRLError {
  /** Stable identifier of this error class (`'CONFIG_INVALID'`), kept by minifiers: match on it. */
  static readonly code = 'CONFIG_INVALID' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'CONFIG_INVALID' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** What was validated, e.g. `Trainer options`. */
    readonly what: string,
    /** Every problem found, each with its dotted path. */
    readonly issues: readonly ConfigIssue[],
  ) {
    super(`${issues.length} problem${issues.length === 1 ? '' : 's'} in ${what}\n` + issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}
