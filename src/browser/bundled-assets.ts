import tokenizerJson from '../../assets/local-model/tokenizer.json' with { type: 'json' };
import tokenizerConfig from '../../assets/local-model/tokenizer_config.json' with { type: 'json' };
import { currentStorage } from '../platform/fs.browser.js';
import { join } from '../platform/path.browser.js';
import type { RunStorage } from '../platform/storage.js';

/** Where the embedded model's tokenizer files sit in a page's storage (found there by `localBackend()`'s default). */
export const BUNDLED_MODEL_DIR = '/assets/local-model';

/**
 * Writes the embedded model's `tokenizer.json` and `tokenizer_config.json` (bundled into `agentrl/browser`) to
 * {@link BUNDLED_MODEL_DIR} of `storage` (default: the current one). Done once when the entry loads; call it again
 * after {@link useStorage} installs a fresh storage.
 */
export function mountBundledAssets(storage: RunStorage = currentStorage()): void {
  const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  storage.write(`${BUNDLED_MODEL_DIR}/tokenizer.json`, encode(tokenizerJson));
  storage.write(`${BUNDLED_MODEL_DIR}/tokenizer_config.json`, encode(tokenizerConfig));
}

/** A file's contents: bytes, text, or a URL the page fetches (same-origin files served with the page). */
export type MountSource = Uint8Array | ArrayBuffer | string | URL;

/**
 * Puts model files (tokenizer, template, checkpoint) into the page's storage under folder `dir`, so `localBackend`'s
 * `modelDir` and `checkpoint` options can name them: `files` maps a file name (`model.safetensors`, `config.json`, …)
 * to its bytes, its text, or a `URL` to fetch.
 * @example await mountFiles('/ckpt/sft', { 'config.json': new URL('sft/config.json', location.href), 'model.safetensors': new URL('sft/model.safetensors', location.href) });
 * @throws Error naming the URL when a fetch answers other than 2xx.
 */
export async function mountFiles(dir: string, files: Readonly<Record<string, MountSource>>, storage: RunStorage = currentStorage()): Promise<void> {
  await Promise.all(
    Object.entries(files).map(async ([name, source]) => {
      let bytes: Uint8Array;
      if (source instanceof URL) {
        const res = await fetch(source);
        if (!res.ok) throw new Error(`mountFiles: ${source.href} answered ${res.status}`);
        bytes = new Uint8Array(await res.arrayBuffer());
      } else if (typeof source === 'string') bytes = new TextEncoder().encode(source);
      else bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
      storage.write(join(dir, name), bytes);
    }),
  );
}
