import { ConfigError } from '../errors/index.js';
import type { LossConfig } from '../types/loss-config.js';
import { aggregationSchema } from './aggregation-schema.js';
import { lossConfigSchema, lossDefinition } from './registry.js';

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
    result.error.issues.map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      return keys.map((key) => ({
        path: [path, ...issue.path.map(String), ...(key === undefined ? [] : [key])].filter((p) => p !== '').join('.'),
        message: issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message,
      }));
    }).flat(),
  );
}

/**
 * One-line human description of a loss config, for logs and the resolved-config printout, e.g.
 * `ppo clip [0.8, 1.28], token-mean`. Defaults are shown filled in.
 */
export function describeLoss(config: LossConfig): string {
  return lossDefinition(config).describe(config as never);
}
