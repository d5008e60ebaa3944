import { existsSync, readFileSync } from '../../platform/fs.js';
import { dirname, join } from '../../platform/path.js';
import { moduleDir } from '../../platform/host.js';
import { ConfigError } from '../../errors/index.js';

/**
 * Finds the bundled `assets/local-model` folder (tokenizer files) by walking up from this module,
 * so it resolves both from `src/backend/local/` and from `dist/`.
 * @throws ConfigError when it cannot be found.
 */
export function defaultModelDir(): string {
  let dir = moduleDir(import.meta.url);
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'assets', 'local-model');
    if (existsSync(join(candidate, 'tokenizer.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new ConfigError('localBackend options', [{ path: 'modelDir', message: 'cannot find assets/local-model/tokenizer.json; pass modelDir' }]);
}

/**
 * Vocabulary size of a `tokenizer.json` (model vocab plus added tokens: max id + 1).
 * @throws ConfigError when the file is missing or malformed.
 */
export function tokenizerVocabSize(dir: string): number {
  try {
    const tj = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as {
      model: { vocab: Record<string, number> };
      added_tokens?: { id: number }[];
    };
    let max = -1;
    for (const id of Object.values(tj.model.vocab)) max = Math.max(max, id);
    for (const t of tj.added_tokens ?? []) max = Math.max(max, t.id);
    return max + 1;
  } catch (e) {
    throw new ConfigError('localBackend options', [{ path: 'modelDir', message: `cannot read ${dir}/tokenizer.json: ${String(e)}` }]);
  }
}
