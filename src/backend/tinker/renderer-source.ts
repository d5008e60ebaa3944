import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadRenderer } from '../../chat/index.js';
import type { Renderer } from '../../chat/types.js';
import type { RendererSettings } from '../../chat/options.js';
import { TokenizerError } from '../../errors/index.js';
import type { TinkerRendererSource } from './options.js';

async function readJsonObject(path: string, optional: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if (optional) return undefined;
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

/** Token strings of ids in `tokenizer.json`'s `added_tokens` (special tokens such as `<|im_end|>`). */
function addedTokenStrings(tokenizerJson: Record<string, unknown>, ids: readonly number[]): string[] {
  const added = Array.isArray(tokenizerJson['added_tokens']) ? (tokenizerJson['added_tokens'] as { id?: unknown; content?: unknown }[]) : [];
  const out: string[] = [];
  for (const id of ids) {
    const hit = added.find((t) => t.id === id && typeof t.content === 'string');
    if (hit) out.push(hit.content as string);
  }
  return out;
}

/**
 * Loads the renderer of a Hugging Face model folder: `tokenizer.json` + `tokenizer_config.json` (chat template), and
 * `generation_config.json` when present, whose `eos_token_id`s (e.g. Qwen3's `<|im_end|>` and `<|endoftext|>`) are
 * added to the stop tokens unless `settings.stopTokens` is given.
 * @throws TokenizerError when a file is missing or not JSON; ConfigError for invalid settings.
 */
export async function loadModelFolderRenderer(dir: string, settings: RendererSettings = {}): Promise<Renderer> {
  const [tokenizerJson, tokenizerConfig, generationConfig] = await Promise.all([
    readJsonObject(join(dir, 'tokenizer.json'), false),
    readJsonObject(join(dir, 'tokenizer_config.json'), false),
    readJsonObject(join(dir, 'generation_config.json'), true),
  ]);
  let stopTokens = settings.stopTokens;
  if (stopTokens === undefined && generationConfig !== undefined) {
    const eos = generationConfig['eos_token_id'];
    const ids = (Array.isArray(eos) ? eos : [eos]).filter((x): x is number => typeof x === 'number');
    const fromGen = addedTokenStrings(tokenizerJson!, ids);
    if (fromGen.length > 0) {
      const base = await loadRenderer({ ...settings, tokenizerJson: tokenizerJson!, tokenizerConfig: tokenizerConfig! });
      const defaults = base.stopTokens.map((t) => addedTokenStrings(tokenizerJson!, [t])[0] ?? base.decode([t]));
      stopTokens = [...new Set([...defaults, ...fromGen])];
      if (stopTokens.length === defaults.length) return base;
    }
  }
  return loadRenderer({ ...settings, ...(stopTokens ? { stopTokens } : {}), tokenizerJson: tokenizerJson!, tokenizerConfig: tokenizerConfig! });
}

/** Resolves a {@link TinkerRendererSource}. */
export function resolveRenderer(src: TinkerRendererSource): Promise<Renderer> {
  if (typeof src === 'string') return loadModelFolderRenderer(src);
  if ('renderPrompt' in src) return Promise.resolve(src);
  const { dir, ...settings } = src;
  return loadModelFolderRenderer(dir, settings);
}
