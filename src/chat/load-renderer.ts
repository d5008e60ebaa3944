import { readFile } from '../platform/fs.js';
import { join } from '../platform/path.js';
import { TokenizerError } from '../errors/chat-errors.js';
import { validateLoadOptions, type LoadRendererOptions } from './options.js';
import { createRenderer, type ChatRenderer } from './renderer.js';

/**
 * Loads a renderer from a folder holding `tokenizer.json` and `tokenizer_config.json` (and, when present,
 * `generation_config.json`, whose `eos_token_id`s all stop a turn, and `config.json`, whose `model_type` helps pick the
 * model family) (`{ dir }`), or from the parsed objects (`{ tokenizerJson, tokenizerConfig, generationConfig?,
 * modelConfig? }`), plus optional settings (`family`, `templateKwargs`, `toolCallFormat`, `codeToolName`, `stopTokens`,
 * `chatTemplate`, `expectedTemplateSha256`). This is the only place in `chat/` that touches the file system.
 *
 * @example
 * const renderer = await loadRenderer({ dir: 'models/qwen3', templateKwargs: { enable_thinking: false } });
 * const prompt = renderer.renderPrompt(messages, { tools });
 *
 * @throws ConfigError for invalid options; TokenizerError when a file is missing or not JSON, or the
 *   files are unusable (see {@link createRenderer}).
 */
export async function loadRenderer(options: LoadRendererOptions): Promise<ChatRenderer> {
  const opts = validateLoadOptions(options);
  if (!('dir' in opts) || opts.dir === undefined) return createRenderer(opts as Parameters<typeof createRenderer>[0]);
  const { dir, ...settings } = opts;
  const [tokenizerJson, tokenizerConfig, generationConfig, modelConfig] = await Promise.all([
    readJson(join(dir, 'tokenizer.json')),
    readJson(join(dir, 'tokenizer_config.json')),
    readJson(join(dir, 'generation_config.json'), { optional: true }),
    readJson(join(dir, 'config.json'), { optional: true }),
  ]);
  return createRenderer({
    ...settings,
    tokenizerJson,
    tokenizerConfig,
    ...(generationConfig ? { generationConfig } : {}),
    ...(modelConfig ? { modelConfig } : {}),
  });
}

async function readJson(path: string): Promise<Record<string, unknown>>;
async function readJson(path: string, opts: { optional: true }): Promise<Record<string, unknown> | undefined>;
async function readJson(path: string, opts: { optional?: boolean } = {}): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if (opts.optional === true && (cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenizerError(`cannot read ${path}: ${String(cause)}`, { cause });
  }
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v as Record<string, unknown>;
  } catch (cause) {
    throw new TokenizerError(`${path} is not a JSON object: ${String(cause)}`, { cause });
  }
}
