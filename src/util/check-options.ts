import { z } from './zod.js';
import { ConfigError } from '../errors/config-error.js';
import { configIssuesFromZod, describeValue, schemaKeyPaths, schemaKeysAt } from '../errors/config-issues.js';

/**
 * Run-time validation of the options objects public functions take (JavaScript callers have no type checker): one
 * strict zod schema per function, so an unknown or misspelt key (`prefixMismatch` for `onPrefixMismatch`) is a
 * `ConfigError` naming it, with the closest known key, as `Trainer` reports its own options.
 */

/** A value of any type: the key is accepted, its value is checked where it is used. */
export const anyValue = z.unknown();
/** A function value. */
export const fnValue = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: 'expected a function' });
/** An object value (not null; arrays and class instances included). */
export const objectValue = z.custom<object>((v) => typeof v === 'object' && v !== null, { message: 'expected an object' });
/** An integer ≥ 1. */
export const positiveInt = z.number().int('expected an integer').min(1, 'expected an integer ≥ 1');
/** An integer ≥ 0. */
export const nonNegativeInt = z.number().int('expected an integer').min(0, 'expected an integer ≥ 0');

/**
 * Throws a {@link ConfigError} unless `input` is a plain options object that `schema` (a `z.strictObject`) accepts.
 * Validation only: the caller keeps using `input` as given (defaults are applied where they always were).
 * @param what - names the function in the message, e.g. `runGroup options`.
 * @param opts.optional - `undefined` is accepted (the parameter has a default).
 * @param opts.signature - how to call the function, quoted when `input` is not an object (`runGroup(ctx, { example, groupSize })`).
 * @throws ConfigError listing every issue with its dotted path; unknown keys as `unknown key (did you mean 'x'?)`.
 */
export function checkOptions(what: string, schema: z.ZodType, input: unknown, opts: { readonly optional?: boolean; readonly signature?: string } = {}): void {
  if (input === undefined && opts.optional === true) return;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError(what, [
      { path: '', message: `expected an options object${opts.signature ? ` — call ${opts.signature}` : ''}, got ${describeValue(input)}` },
    ]);
  }
  const r = schema.safeParse(input);
  if (!r.success)
    throw new ConfigError(
      what,
      configIssuesFromZod(r.error.issues, input, (path) => schemaKeysAt(schema, path)),
    );
}

/**
 * Throws a {@link ConfigError} when a function was called with more arguments than it takes — a call written for a
 * positional signature it no longer has (`runGroup(ctx, example, groupSize)` before `runGroup(ctx, { example, groupSize })`).
 */
export function checkArgumentCount(what: string, count: number, max: number, signature: string): void {
  if (count > max)
    throw new ConfigError(what, [{ path: '', message: `takes at most ${max} arguments, got ${count}: call ${signature} (positional arguments are not read)` }]);
}

/** Every key of `T`, of each member when `T` is a union (`keyof` alone keeps only the keys all members share). */
type AllKeys<T> = T extends unknown ? keyof T : never;

/** The keys of `T` a caller may leave out: optional in a member of `T`, or absent from one (for a union). */
type OmittableKeys<T, U = T> = U extends unknown ? Exclude<AllKeys<T>, keyof U> | { [K in keyof U]-?: object extends Pick<U, K> ? K : never }[keyof U] : never;

/** A zod schema that accepts `undefined` (the key may be absent): `.optional()` or `.default(…)`. */
export type OmittableSchema = z.ZodOptional<z.ZodType> | z.ZodDefault<z.ZodType>;

/**
 * The run-time key set of an options type `T`: every key of `T` (optional ones too) mapped to `true` (any value,
 * optional: the value is checked where it is used, or by the function's own validation) or to the key's own zod
 * schema — required unless that schema is optional, so a key `T` lets callers leave out takes only an
 * {@link OmittableSchema}. As an object literal it is checked by the compiler against `T` in both directions: a key
 * of `T` left out is a missing property, a key `T` does not have is an excess property.
 */
export type OptionKeys<T> = { readonly [K in AllKeys<T>]: K extends OmittableKeys<T> ? true | OmittableSchema : true | z.ZodType };

/** What {@link optionKeys} takes when its type argument is left out (the key set would then be checked against nothing). */
interface OptionsTypeNotNamed {
  readonly 'name the options type: optionKeys<Options>({ ... })': never;
}

/**
 * The strict schema of an options type `T` for {@link checkOptions}: accepts exactly the keys of `keys` (which the
 * compiler checks are exactly the keys of `T`, see {@link OptionKeys}), `true` ones with any value or absent, the
 * others by their own schema. Name `T` explicitly: `optionKeys<SearchEnvOptions>({ retriever: true, topK: true, … })`.
 */
export function optionKeys<T extends object = never>(keys: NoInfer<[T] extends [never] ? OptionsTypeNotNamed : OptionKeys<T>>): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(keys)) shape[k] = v === true ? anyValue.optional() : (v as z.ZodType);
  return z.strictObject(shape);
}

/**
 * Parses `value` with a strict zod schema and throws one {@link ConfigError} naming every offending key (dotted path,
 * `unknown key (did you mean …?)` for a misspelt one) instead of zod's own error.
 * @param what - what is validated, e.g. `coldStart options`; heads the error message.
 * @throws ConfigError
 * @internal
 */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    what,
    configIssuesFromZod(parsed.error.issues, value, (path) => schemaKeysAt(schema, path), schemaKeyPaths(schema)),
  );
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
