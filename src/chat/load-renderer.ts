import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TokenizerError } from '../errors/chat-errors.js';
import { validateLoadOptions, type LoadRendererOptions } from './options.js';
import { createRenderer, type ChatRenderer } from './renderer.js';

/**
 * Loads a renderer from a folder holding `tokenizer.json` and `tokenizer_config.json` (`{ dir }`), or
 * from the parsed objects (`{ tokenizerJson, tokenizerConfig }`), plus optional settings
 * (`templateKwargs`, `toolCallFormat`, `codeToolName`, `stopTokens`, `eosTokenIds`, `chatTemplate`,
 * `expectedTemplateSha256`). When `eosTokenIds` is not given, the folder's `generation_config.json` (if any)
 * supplies them. This is the only place in `chat/` that touches the file system.
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
  const [tokenizerJson, tokenizerConfig, eosTokenIds] = await Promise.all([
    readJson(join(dir, 'tokenizer.json')),
    readJson(join(dir, 'tokenizer_config.json')),
    settings.eosTokenIds ?? readGenerationEos(dir),
  ]);
  return createRenderer({ ...settings, tokenizerJson, tokenizerConfig, ...(eosTokenIds.length > 0 ? { eosTokenIds } : {}) });
}

/**
 * Every `eos_token_id` of `DIR/generation_config.json` (a number or a list); `[]` when the file is absent.
 * Qwen3 instruct models list two (`<|im_end|>` and `<|endoftext|>`), while `tokenizer_config.json` names one.
 * @throws TokenizerError when the file exists but is not JSON or its `eos_token_id` is not an id or a list of ids.
 */
export async function readGenerationEos(dir: string): Promise<number[]> {
  const path = join(dir, 'generation_config.json');
  try {
    await access(path);
  } catch {
    return [];
  }
  const eos = (await readJson(path)).eos_token_id;
  if (eos === undefined || eos === null) return [];
  const ids = Array.isArray(eos) ? eos : [eos];
  if (!ids.every((x) => Number.isInteger(x) && (x as number) >= 0)) {
    throw new TokenizerError(`${path}: eos_token_id must be a token id or a list of ids, got ${JSON.stringify(eos)}`);
  }
  return ids as number[];
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
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
