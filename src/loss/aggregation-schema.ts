import { z } from '../util/zod.js';

/** Zod schema of `Aggregation`. */
export const aggregationSchema = z.enum(['token-mean', 'sequence-mean', 'token-sum'], {
  error: (iss) => `expected 'token-mean' | 'sequence-mean' | 'token-sum', got ${JSON.stringify(iss.input)}`,
});
