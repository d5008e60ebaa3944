import { ConfigError } from '../errors/index.js';
import type { LossConfig } from '../types/loss-config.js';
import { aggregationSchema } from './aggregation-schema.js';
import { lossConfigSchema } from './registry.js';

export { aggregationSchema, lossConfigSchema };

/**
 * Validates an unknown value as a {@link LossConfig}.
 * @param input - e.g. the `loss` option of the trainer.
 * @param path - dotted prefix for issue paths. @default 'loss'
 * @returns the config (frozen).
 * @throws ConfigError listing every problem with its dotted path, e.g. `loss.clipHigh: expected a number > 1, got 0.28`.
 */
export function parseLossConfig(input: unknown, path = 'loss'): LossConfig {
  const result = lossConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(
    'loss config',
    result.error.issues.flatMap((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      return keys.map((key) => ({
        path: [path, ...issue.path.map(String), ...(key === undefined ? [] : [key])].filter((p) => p !== '').join('.'),
        message: issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message,
      }));
    }),
  );
}
