import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import type { LossConfig } from '../types/loss-config.js';
import { assertNever } from './assert-never.js';

const gotNumber = (input: unknown): string =>
  input === undefined ? 'nothing (required)' : typeof input === 'number' ? String(input) : typeof input;

/** Zod schema of `Aggregation`. */
export const aggregationSchema = z.enum(['token-mean', 'sequence-mean', 'token-sum'], {
  error: (iss) => `expected 'token-mean' | 'sequence-mean' | 'token-sum', got ${JSON.stringify(iss.input)}`,
});

const ppoSchema = z.strictObject({
  kind: z.literal('ppo'),
  clipLow: z
    .number({ error: (iss) => `expected a number in (0, 1), got ${gotNumber(iss.input)}` })
    .gt(0, { error: (iss) => `expected a number in (0, 1), got ${gotNumber(iss.input)}` })
    .lt(1, { error: (iss) => `expected a number in (0, 1), got ${gotNumber(iss.input)}` }),
  clipHigh: z
    .number({ error: (iss) => `expected a number > 1, got ${gotNumber(iss.input)}` })
    .gt(1, { error: (iss) => `expected a number > 1, got ${gotNumber(iss.input)}` }),
  aggregation: aggregationSchema.optional(),
});

const importanceSamplingSchema = z.strictObject({
  kind: z.literal('importance_sampling'),
  aggregation: aggregationSchema.optional(),
});

const cispoSchema = z
  .strictObject({
    kind: z.literal('cispo'),
    clipLow: z
      .number({ error: (iss) => `expected a number ≥ 0, got ${gotNumber(iss.input)}` })
      .min(0, { error: (iss) => `expected a number ≥ 0, got ${gotNumber(iss.input)}` })
      .optional(),
    clipHigh: z
      .number({ error: (iss) => `expected a number > 0, got ${gotNumber(iss.input)}` })
      .gt(0, { error: (iss) => `expected a number > 0, got ${gotNumber(iss.input)}` }),
    aggregation: aggregationSchema.optional(),
  })
  .refine((c) => c.clipLow === undefined || c.clipLow < c.clipHigh, {
    error: 'expected clipLow < clipHigh',
    path: ['clipLow'],
  });

const crossEntropySchema = z.strictObject({
  kind: z.literal('cross_entropy'),
  aggregation: aggregationSchema.optional(),
});

/**
 * Zod schema of {@link LossConfig}: a discriminated union on `kind` of strict objects (unknown keys rejected).
 * - `ppo`: `0 < clipLow < 1 < clipHigh` (absolute ratio bounds; DAPO clip-higher = `{ clipLow: 0.8, clipHigh: 1.28 }`).
 * - `importance_sampling`: no parameters.
 * - `cispo`: `clipHigh > 0`, optional `0 ≤ clipLow < clipHigh` (default 0).
 * - `cross_entropy`: no parameters.
 * - every kind: optional `aggregation` (`'token-mean'` when absent).
 * No defaults are filled in, so the parsed value is exactly a `LossConfig` (kept in step by a type test).
 * The parsed object is frozen.
 */
export const lossConfigSchema = z
  .discriminatedUnion('kind', [ppoSchema, importanceSamplingSchema, cispoSchema, crossEntropySchema], {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `expected kind 'ppo' | 'importance_sampling' | 'cispo' | 'cross_entropy', got ${JSON.stringify(
            (iss.input as { kind?: unknown } | undefined)?.kind,
          )}`
        : undefined,
  })
  .readonly();

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
  const agg = config.aggregation ?? 'token-mean';
  switch (config.kind) {
    case 'ppo':
      return `ppo clip [${config.clipLow}, ${config.clipHigh}], ${agg}`;
    case 'importance_sampling':
      return `importance sampling, ${agg}`;
    case 'cispo':
      return `cispo clip [${config.clipLow ?? 0}, ${config.clipHigh}], ${agg}`;
    case 'cross_entropy':
      return `cross entropy, ${agg}`;
    default:
      return assertNever(config);
  }
}
