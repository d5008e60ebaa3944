import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, ConfigError } from '../../errors/index.js';
import { defaultModelDir } from './assets.js';
import { readCheckpointConfig } from './checkpoint.js';
import { decodeSafetensors } from './safetensors.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';

const EXPORT_OPTIONS = optionKeys<ExportCheckpointOptions>({ format: true, tokenizerDir: true });

/** Options of {@link exportCheckpoint}. */
export interface ExportCheckpointOptions {
  /** Output format: a Hugging Face-style folder with `model.safetensors`. */
  readonly format: 'safetensors';
  /** Folder with the tokenizer files to copy. @default the bundled `assets/local-model` */
  readonly tokenizerDir?: string;
}

/** Tokenizer files copied next to the weights when present. */
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'generation_config.json', 'chat_template.jinja'];

/**
 * Writes the embedded engine's checkpoint `from` (a `saveState` folder, or an extracted `agentrl serve` archive) as a
 * Hugging Face-style folder `to`: `config.json` (architecture, sizes, `torch_dtype: "float32"`), `model.safetensors`
 * (the weights, F32, unchanged; the optimizer state is left out) and the tokenizer files. Any safetensors reader
 * opens the weights file; the architecture (`agentrl-local-gpt`) is the embedded engine's own, not a transformers one.
 * @returns the files written.
 * @throws ConfigError for another format; CheckpointError when `from` is not a readable checkpoint.
 */
export async function exportCheckpoint(from: string, to: string, options: ExportCheckpointOptions): Promise<string[]> {
  checkOptions('exportCheckpoint options', EXPORT_OPTIONS, options);
  if (options.format !== 'safetensors')
    throw new ConfigError('exportCheckpoint options', [{ path: 'format', message: `'${String(options.format)}' is not supported; use 'safetensors'` }]);
  const cfg = readCheckpointConfig(from);
  const weights = await readFile(join(from, 'model.safetensors')).catch((e: unknown) => {
    throw new CheckpointError(`cannot read ${join(from, 'model.safetensors')}: ${String(e)}`, { cause: e });
  });
  const { tensors } = decodeSafetensors(weights); // checks the file before it is published
  const m = cfg.model;
  const hf = {
    architectures: ['AgentrlLocalGPT'],
    model_type: 'agentrl-local-gpt',
    hidden_size: m.dModel,
    num_hidden_layers: m.layers,
    num_attention_heads: m.heads,
    vocab_size: m.vocabSize,
    max_position_embeddings: m.contextTokens,
    torch_dtype: 'float32',
    agentrl: { format: cfg.format, step: cfg.step, tensors: tensors.size },
  };
  try {
    await mkdir(to, { recursive: true });
    await copyFile(join(from, 'model.safetensors'), join(to, 'model.safetensors'));
    await writeFile(join(to, 'config.json'), JSON.stringify(hf, null, 2) + '\n');
    const written = ['config.json', 'model.safetensors'];
    const tok = options.tokenizerDir ?? defaultModelDir();
    for (const f of TOKENIZER_FILES) {
      if (!existsSync(join(tok, f))) continue;
      await copyFile(join(tok, f), join(to, f));
      written.push(f);
    }
    return written;
  } catch (e) {
    throw new CheckpointError(`cannot write the export to ${to}: ${String(e)}`, { cause: e });
  }
}
