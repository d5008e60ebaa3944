import { AgentRLError } from './base.js';

/**
 * A feature needs an optional peer dependency that your project has not installed (agentrl leaves heavy or native
 * packages to you, so a plain `npm install agentrl` builds nothing). The message names the feature and the command
 * that installs the package; `cause` holds the resolver's own error.
 */
export class MissingPeerDependencyError extends AgentRLError {
  /** Stable identifier of this error class (`'MISSING_PEER_DEPENDENCY'`), kept by minifiers: match on it. */
  static readonly code = 'MISSING_PEER_DEPENDENCY' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'MISSING_PEER_DEPENDENCY' as const;
  /** The npm package, e.g. `playwright-core`. */
  readonly packageName: string;
  /** What asked for it, e.g. `agentrl dashboard --screenshot`. */
  readonly feature: string;
  /** The command that installs it, e.g. `npm install --save-dev playwright-core@^1.65.0`. */
  readonly installCommand: string;
  /** The package, the feature that needs it and the install command (each becomes the property of that name); `cause`. */
  constructor(options: { readonly packageName: string; readonly feature: string; readonly installCommand: string } & ErrorOptions) {
    const { packageName, feature, installCommand } = options;
    super(`${feature} needs ${packageName}, an optional peer dependency that is not installed: ${installCommand}`, options);
    this.packageName = packageName;
    this.feature = feature;
    this.installCommand = installCommand;
    this.name = 'MissingPeerDependencyError';
  }
}
