import { AgentRLError } from './base.js';

/**
 * The zod agentrl resolves, or a schema handed to it, is not zod 4. zod is a peer dependency (`^4.0.0`): agentrl
 * uses the copy your project installs, so your schemas and agentrl's types are the same types. Raised by
 * `defineTool` and `new Trainer` instead of the confusing failures a mismatch causes (`z.toJSONSchema is not a
 * function`, or `TS2589: Type instantiation is excessively deep` when two copies meet in the types).
 */
export class ZodVersionError extends AgentRLError {
  /** Stable identifier of this error class (`'ZOD_VERSION'`), kept by minifiers: match on it. */
  static readonly code = 'ZOD_VERSION' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'ZOD_VERSION' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** What was found, e.g. `zod 3.23.8 (no z.toJSONSchema)` or `a zod 3 schema (no _zod)`. */
    readonly found: string,
    /** Where: `agentrl's zod import` or `defineTool('price').inputSchema`. */
    readonly where: string,
  ) {
    super(
      `${where}: agentrl needs zod ^4.0.0 (a peer dependency), found ${found}. ` +
        `Install one zod 4 in your project (\`npm install zod@^4\`) and import z from 'zod' (not 'zod/v3')`,
    );
    this.name = 'ZodVersionError';
  }
}
