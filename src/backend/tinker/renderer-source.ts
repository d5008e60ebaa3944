import { loadRenderer } from '../../chat/index.js';
import type { Renderer } from '../../chat/types.js';
import type { RendererSettings } from '../../chat/options.js';
import type { TinkerRendererSource } from './options.js';

/**
 * Loads the renderer of a Hugging Face model folder: `tokenizer.json` + `tokenizer_config.json` (chat template), and
 * `generation_config.json` when present, whose `eos_token_id`s (e.g. Qwen3's `<|im_end|>` and `<|endoftext|>`) all
 * stop a turn (`loadRenderer({ dir })`).
 * @throws TokenizerError when a file is missing or not JSON; ConfigError for invalid settings.
 */
export function loadModelFolderRenderer(dir: string, settings: RendererSettings = {}): Promise<Renderer> {
  return loadRenderer({ ...settings, dir });
}

/** Resolves a {@link TinkerRendererSource}. */
export function resolveRenderer(src: TinkerRendererSource): Promise<Renderer> {
  if (typeof src === 'string') return loadModelFolderRenderer(src);
  if ('renderPrompt' in src) return Promise.resolve(src);
  const { dir, ...settings } = src;
  return loadModelFolderRenderer(dir, settings);
}
