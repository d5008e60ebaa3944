import { AgentRLError } from './base.js';

/**
 * A feature needs an optional peer dependency that your project has not installed (agentrl leaves heavy or native
 * packages to you, so a plain `npm install agentrl` builds nothing). The message names the feature and the command
 * that installs the package; `cause` holds the resolver's own error.
 */
export class MissingPeerDependencyError extends AgentRLError {
  readonly code = 'MISSING_PEER_DEPENDENCY' as const;
  constructor(
    /** The npm package, e.g. `playwright-core`. */
    readonly packageName: string,
    /** What asked for it, e.g. `agentrl dashboard --screenshot`. */
    readonly feature: string,
    /** The command that installs it, e.g. `npm install --save-dev playwright-core@^1.65.0`. */
    readonly installCommand: string,
    options?: ErrorOptions,
  ) {
    super(`${feature} needs ${packageName}, an optional peer dependency that is not installed: ${installCommand}`, options);
    this.name = 'MissingPeerDependencyError';
  }
}
