import { z } from '../../util/zod.js';
import { ConfigError } from '../../errors/index.js';
import { configIssuesFromZod, schemaKeysAt } from '../../errors/config-issues.js';

/** Shape of the embedded transformer (pre-LN GPT, tied embeddings, GELU MLP of width 4·dModel). */
export interface ModelConfig {
  /** Number of transformer blocks. */
  readonly layers: number;
  /** Residual width; must be divisible by `heads`. */
  readonly dModel: number;
  /** Attention heads. */
  readonly heads: number;
  /** Maximum sequence length in tokens (prompt + completion; learned position table size). */
  readonly contextTokens: number;
  /** Vocabulary size in tokens (from the tokenizer, including added tokens). */
  readonly vocabSize: number;
}

/**
 * Parameter count of a model with this config (tied embeddings counted once): embeddings + positions + per layer
 * (attention 4·d² + 4·d, MLP 2·4·d² + 4·d + d, two layer norms) + the final norm. Used by `agentrl serve` to book a
 * checkpoint's bytes before it is written.
 */
export function parameterCount(c: ModelConfig): number {
  const d = c.dModel;
  const block = 4 * d * d + 4 * d + 2 * 4 * d * d + 4 * d + d + 4 * d;
  return c.vocabSize * d + c.contextTokens * d + c.layers * block + 2 * d;
}

const modelConfigSchema = z.strictObject({
  layers: z.number().int().min(1).max(64),
  dModel: z.number().int().min(8).max(4096),
  heads: z.number().int().min(1).max(64),
  contextTokens: z.number().int().min(8).max(65536),
  vocabSize: z.number().int().min(2).max(1_000_000),
});

/**
 * Validates a model config (also used for `config.json` of checkpoints).
 * @throws ConfigError listing dotted paths, e.g. `dModel: must be divisible by heads`.
 */
export function parseModelConfig(raw: unknown, what = 'local model config'): ModelConfig {
  const r = modelConfigSchema.safeParse(raw);
  const issues = r.success ? [] : configIssuesFromZod(r.error.issues, raw, (path) => schemaKeysAt(modelConfigSchema, path));
  const { dModel, heads } = (raw ?? {}) as { dModel?: unknown; heads?: unknown };
  if (typeof dModel === 'number' && typeof heads === 'number' && Number.isInteger(dModel) && Number.isInteger(heads) && heads >= 1 && dModel % heads !== 0) {
    issues.push({ path: 'dModel', message: `must be divisible by heads (${heads}), got ${dModel}` });
  }
  if (!r.success || issues.length > 0) throw new ConfigError(what, issues);
  return r.data;
}
