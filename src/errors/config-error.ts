import { AgentRLError } from './base.js';

/** One problem found in a configuration object. `path` is dotted, e.g. `loss.clipHigh`. */
export interface ConfigIssue {
  readonly path: string;
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
  static readonly code = 'CONFIG_INVALID' as const;
  readonly code = 'CONFIG_INVALID' as const;
  constructor(
    readonly what: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(
      `${issues.length} problem${issues.length === 1 ? '' : 's'} in ${what}\n` +
        issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}
