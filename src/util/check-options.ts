import { z } from './zod.js';
import { ConfigError } from '../errors/config-error.js';
import { configIssuesFromZod, schemaKeyPaths, schemaKeysAt } from '../errors/config-issues.js';

/**
 * Parses `value` with a strict zod schema and throws one {@link ConfigError} naming every offending key (dotted path,
 * `unknown key (did you mean …?)` for a misspelt one) instead of zod's own error.
 * @param what - what is validated, e.g. `coldStart options`; heads the error message.
 * @throws ConfigError
 * @internal
 */
export function checkOptions<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(what, configIssuesFromZod(parsed.error.issues, value, (path) => schemaKeysAt(schema, path), schemaKeyPaths(schema)));
}

const posInt = z.number().int().positive();

/** Partial rollout budgets, strict (the keys of `RolloutBudgets`, each a positive whole number of tokens / turns / calls). @internal */
export const partialBudgetsSchema = z.strictObject({
  maxToolCalls: z.number().int().min(0).optional(),
  maxTurns: posInt.optional(),
  maxTrajectoryTokens: posInt.optional(),
  maxTurnTokens: posInt.optional(),
  maxToolResponseTokens: posInt.optional(),
});
