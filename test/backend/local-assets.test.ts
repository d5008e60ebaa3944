import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadRenderer } from '../../src/chat/index.js';

const dir = new URL('../../assets/local-model/', import.meta.url).pathname;
const tj = JSON.parse(readFileSync(dir + 'tokenizer.json', 'utf8'));
const tc = JSON.parse(readFileSync(dir + 'tokenizer_config.json', 'utf8'));
const tok = new Tokenizer(tj, tc);
const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>'];

describe('bundled local-model tokenizer files', () => {
  it('round-trips arbitrary text byte by byte', () => {
    // Hazard: a tokenizer that cannot represent some model output (non-ASCII, control chars).
    for (const s of ['hello world', '  x = 3\n\tprint(x**2)  ', 'héllo 𝔘 日本 \u0000\u007f', '\\boxed{42}']) {
      const ids = tok.encode(s).ids;
      expect(ids).toEqual(Array.from(Buffer.from(s, 'utf8')));
      expect(tok.decode(ids)).toBe(s);
    }
  });

  it('encodes every special token as one id after the 256 bytes', () => {
    // Hazard: control tokens split into bytes, so stop tokens never fire.
    SPECIALS.forEach((s, i) => expect(tok.encode(s).ids).toEqual([256 + i]));
    expect(tc.eos_token).toBe('<|im_end|>');
    expect(tc.pad_token).toBe('<|endoftext|>');
  });

  it('renders ChatML with a compact tool line through the shared renderer', async () => {
    // Hazard: the renderer's Qwen code path not working on the embedded model's files.
    const r = await loadRenderer({ dir });
    expect(r.vocabSize).toBe(265);
    expect(r.stopTokens).toContain(258);
    const tools = [{ type: 'function' as const, function: { name: 'code_interpreter', description: 'Run Python code.', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } } }];
    const ids = r.renderPrompt([{ role: 'user', content: 'What is 2+2?' }], { tools });
    const text = r.decode(ids);
    expect(text).toContain('Tools:\ncode_interpreter(code: string)<|im_end|>');
    expect(text.endsWith('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    expect(ids.length).toBeLessThan(260); // vs ~700 chars of Qwen preamble
  });
});
