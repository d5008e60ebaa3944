import { z } from '../../util/zod.js';
import { aggregationSchema } from '../aggregation-schema.js';

const gotNumber = (input: unknown): string => (input === undefined ? 'nothing (required)' : typeof input === 'number' ? String(input) : typeof input);

/** A number schema whose every failure reads `expected <what>, got <value>`. */
export function numberIn(what: string, refine: (n: z.ZodNumber, error: (iss: { input: unknown }) => string) => z.ZodNumber): z.ZodNumber {
  const error = (iss: { input: unknown }) => `expected ${what}, got ${gotNumber(iss.input)}`;
  return refine(z.number({ error }), error);
}

/** A ratio bound in (0, 1). */
export const lowerRatioBound = () => numberIn('a number in (0, 1)', (n, error) => n.gt(0, { error }).lt(1, { error }));
/** A ratio bound > 1. */
export const upperRatioBound = () => numberIn('a number > 1', (n, error) => n.gt(1, { error }));

export { aggregationSchema };
