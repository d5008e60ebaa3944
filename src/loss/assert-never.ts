/** Exhaustiveness guard for `switch` statements over discriminated unions: a new member breaks the build here. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
