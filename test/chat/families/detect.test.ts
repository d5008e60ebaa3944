import { describe, expect, it } from 'vitest';
import { detectFamily, getFamily } from '../../../src/chat/families/registry.js';
import { loadRenderer } from '../../../src/chat/load-renderer.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { ConfigError } from '../../../src/errors/config-error.js';

const none = new Set<string>();

describe('family detection from the model folder', () => {
  it('reads config.json model_type first', () => {
    expect(detectFamily({ modelType: 'gpt_oss', specialTokens: none })).toBe('gpt_oss');
    expect(detectFamily({ modelType: 'deepseek_v3', specialTokens: none })).toBe('deepseek_v3');
    expect(detectFamily({ modelType: 'kimi_k2', specialTokens: none })).toBe('kimi_k2');
    expect(detectFamily({ modelType: 'mistral', specialTokens: none })).toBe('mistral');
    expect(detectFamily({ modelType: 'qwen3_5', specialTokens: none })).toBe('qwen3_coder');
  });
  it('then the tokenizer added tokens and the chat template markers', () => {
    expect(detectFamily({ specialTokens: new Set(['<|channel|>', '<|call|>', '<|start|>']) })).toBe('gpt_oss');
    expect(detectFamily({ specialTokens: new Set(['<|eot_id|>', '<|start_header_id|>']) })).toBe('llama3');
    expect(detectFamily({ specialTokens: new Set(['<｜tool▁calls▁begin｜>']) })).toBe('deepseek_v3');
    expect(detectFamily({ specialTokens: new Set(['<|tool_calls_section_begin|>', '<|im_end|>']) })).toBe('kimi_k2');
    expect(detectFamily({ specialTokens: new Set(['[TOOL_CALLS]', '</s>']) })).toBe('mistral');
    const coder = '{{- "<tool_call>\\n<function=" + name }}{{- "<parameter=" + k }}';
    expect(detectFamily({ modelType: 'qwen3_moe', chatTemplate: coder, specialTokens: new Set(['<|im_start|>']) })).toBe('qwen3_coder');
    expect(detectFamily({ modelType: 'qwen3', chatTemplate: '<tool_call>', specialTokens: new Set(['<|im_start|>']) })).toBe('qwen3');
  });
  it('falls back to qwen3 (ChatML + Hermes) when nothing matches, and refuses an unknown id', () => {
    expect(detectFamily({ specialTokens: none })).toBe('qwen3');
    expect(() => getFamily('gpt5' as never)).toThrow(ConfigError);
  });
});

describe('the embedded model and the override', () => {
  it('the embedded model is qwen3 (its Jinja template), and `family` overrides detection', async () => {
    const r = await loadRenderer({ dir: LOCAL_MODEL_DIR });
    expect([r.family, r.templateSource]).toEqual(['qwen3', 'jinja']);
    const m = await loadRenderer({ dir: LOCAL_MODEL_DIR, family: 'mistral' });
    expect(m.family).toBe('mistral');
    expect(m.parseAssistant('[TOOL_CALLS]search[ARGS]{"q": "x"}')).toMatchObject({ kind: 'tool', call: { function: { name: 'search' } } });
    expect(m.parseAssistant('<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>').kind).toBe('answer');
  });
  it('an unknown family is a ConfigError before anything loads', async () => {
    await expect(loadRenderer({ dir: LOCAL_MODEL_DIR, family: 'gpt5' as never })).rejects.toThrow(ConfigError);
  });
});
