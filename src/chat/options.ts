import { z } from '../util/zod.js';
import { ConfigError } from '../errors/config-error.js';
import type { ToolCallFormat } from './parse-assistant.js';
import { FAMILY_IDS, type FamilyId } from './families/types.js';

/** Settings shared by {@link loadRenderer} and {@link createRenderer}. */
export interface RendererSettings {
  /**
   * The model family (prompt format, tool-call syntax, stop tokens; docs/models.md). @default detected from the folder:
   * `config.json`'s `model_type`, the tokenizer's added tokens, the chat template's markers; `qwen3` when none match.
   */
  readonly family?: FamilyId;
  /** Default template variables for every render, e.g. `{ enable_thinking: false }`; per-call kwargs override them. */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  /** How a Qwen3 `<tool_call>` body is written. @default 'json' */
  readonly toolCallFormat?: ToolCallFormat;
  /** Tool that receives the body in `'code'` format. @default 'code_interpreter' */
  readonly codeToolName?: string;
  /**
   * Token strings that end an assistant turn. @default the config's `eos_token` plus `<|im_end|>` when in the
   * vocabulary. The ids of `generation_config.json`'s `eos_token_id` are always added.
   */
  readonly stopTokens?: readonly string[];
  /**
   * Token ids that also end a turn, added to `stopTokens` (their strings to `stopStrings`): the model's
   * end-of-sequence ids, e.g. every `eos_token_id` of `generation_config.json`. `loadRenderer({ dir })` reads them
   * from that file when present and this is not given.
   */
  readonly eosTokenIds?: readonly number[];
  /** Chat template source that replaces the one in `tokenizer_config.json` (e.g. a history-preserving Qwen3 variant). */
  readonly chatTemplate?: string;
  /** When set, the template's sha256 (hex) must equal it, pinning the exact template revision tested against. */
  readonly expectedTemplateSha256?: string;
}

/** In-memory tokenizer files: parsed `tokenizer.json`, `tokenizer_config.json` and, when the model has one, `generation_config.json`. */
export interface RendererFiles {
  /** Parsed `tokenizer.json` (the Hugging Face tokenizers format). */
  readonly tokenizerJson: Record<string, unknown>;
  /** Parsed `tokenizer_config.json` (chat template, special tokens). */
  readonly tokenizerConfig: Record<string, unknown>;
  /**
   * Parsed `generation_config.json`. Every id of its `eos_token_id` (a number or a list) also ends a turn, as in
   * `transformers`' `generate` (Qwen3: `<|im_end|>` and `<|endoftext|>`).
   */
  readonly generationConfig?: Record<string, unknown>;
  /** Parsed `config.json` of the model, when there is one: its `model_type` picks the family. */
  readonly modelConfig?: Record<string, unknown>;
}

/** Options of {@link loadRenderer}: a folder holding the two files, or the parsed objects themselves. */
export type LoadRendererOptions = RendererSettings & ({ readonly dir: string } | RendererFiles);

const settingsShape = {
  family: z.enum(FAMILY_IDS as [FamilyId, ...FamilyId[]]).optional(),
  templateKwargs: z.record(z.string(), z.unknown()).optional(),
  toolCallFormat: z.enum(['json', 'code']).optional(),
  codeToolName: z.string().min(1).optional(),
  stopTokens: z.array(z.string().min(1)).min(1).optional(),
  eosTokenIds: z.array(z.number().int().min(0)).optional(),
  chatTemplate: z.string().min(1).optional(),
  expectedTemplateSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits')
    .optional(),
};

const fileObject = z.record(z.string(), z.unknown());

const loadSchema = z
  .strictObject({
    dir: z.string().min(1).optional(),
    tokenizerJson: fileObject.optional(),
    tokenizerConfig: fileObject.optional(),
    generationConfig: fileObject.optional(),
    modelConfig: fileObject.optional(),
    ...settingsShape,
  })
  .superRefine((o, ctx) => {
    const hasFiles = o.tokenizerJson !== undefined || o.tokenizerConfig !== undefined || o.generationConfig !== undefined || o.modelConfig !== undefined;
    if (o.dir !== undefined && hasFiles) {
      ctx.addIssue({ code: 'custom', path: ['dir'], message: 'give either dir or tokenizerJson + tokenizerConfig, not both' });
    } else if (o.dir === undefined) {
      if (o.tokenizerJson === undefined) ctx.addIssue({ code: 'custom', path: ['tokenizerJson'], message: 'required when dir is not given' });
      if (o.tokenizerConfig === undefined) ctx.addIssue({ code: 'custom', path: ['tokenizerConfig'], message: 'required when dir is not given' });
    }
  });

const createSchema = z.strictObject({
  tokenizerJson: fileObject,
  tokenizerConfig: fileObject,
  generationConfig: fileObject.optional(),
  modelConfig: fileObject.optional(),
  ...settingsShape,
});

/**
 * Validates {@link LoadRendererOptions}.
 * @throws ConfigError listing every problem with its dotted path.
 */
export function validateLoadOptions(opts: unknown): LoadRendererOptions {
  return check(loadSchema, opts, 'loadRenderer options') as LoadRendererOptions;
}

/**
 * Validates the options of {@link createRenderer}.
 * @throws ConfigError listing every problem with its dotted path.
 */
export function validateCreateOptions(opts: unknown): RendererSettings & RendererFiles {
  return check(createSchema, opts, 'createRenderer options') as RendererSettings & RendererFiles;
}

function check(schema: z.ZodType, value: unknown, what: string): unknown {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new ConfigError(
    what,
    r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  );
}
