import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadRenderer } from '../../src/chat/index.js';

const dir = new URL('../../assets/local-model/', import.meta.url).pathname;
const tj = JSON.parse(readFileSync(dir + 'tokenizer.json', 'utf8'));
const tc = JSON.parse(readFileSync(dir + 'tokenizer_config.json', 'utf8'));
const tok = new Tokenizer(tj, tc);
const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>'];

const VOCAB = Object.keys(tj.model.vocab).length;

describe('bundled local-model tokenizer files', () => {
  it('round-trips arbitrary text exactly (byte fallback through the 256 byte tokens)', () => {
    // Hazard: a tokenizer that cannot represent some model output (non-ASCII, control chars).
    for (const s of ['hello world', '  x = 3\n\tprint(x**2)  ', 'héllo 𝔘 日本 \u0000\u007f', '\\boxed{42}', 'zqxjv kwyz']) {
      expect(tok.decode(tok.encode(s).ids)).toBe(s);
    }
    expect(tok.encode('\u0001').ids).toEqual([1]); // a byte no merge covers is its own byte token
  });

  it('chunks digit runs left to right in pairs, each pair one token', () => {
    // Hazard: a number tokenized differently in the question and in the code, so copying is not a token copy.
    const pieces = (s: string) => tok.encode(s).ids.map((id: number) => tok.decode([id]));
    expect(pieces('3829')).toEqual(['38', '29']);
    expect(pieces('12345')).toEqual(['12', '34', '5']);
    expect(pieces('x=47*382')).toEqual(['x', '=', '47', '*', '38', '2']);
    for (const n of ['0', '07', '99']) expect(tok.encode(n).ids).toHaveLength(1);
  });

  it('gives a word the same tokens wherever it appears (no leading space or punctuation glued on)', () => {
    // Hazard: " Lima" in a passage and ">Lima" in an answer being different tokens.
    const ids = (s: string) => tok.encode(s).ids as number[];
    const lima = ids('Lima');
    expect(lima).toHaveLength(1);
    for (const ctx of [' Lima', '>Lima<', '(Lima)', "'Lima'", '\nLima']) {
      expect(ids(ctx).join(',')).toContain(lima.join(','));
    }
    expect(ids('print(47*38)').map((id) => tok.decode([id]))).toEqual(['print', '(', '47', '*', '38', ')']);
  });

  it('encodes every special token as one id after the merged vocabulary', () => {
    // Hazard: control tokens split into bytes, so stop tokens never fire.
    SPECIALS.forEach((s, i) => {
      expect(tok.encode(s).ids).toEqual([VOCAB + i]);
    });
    expect(tc.eos_token).toBe('<|im_end|>');
    expect(tc.pad_token).toBe('<|endoftext|>');
  });

  it('renders ChatML with a compact tool line through the shared renderer', async () => {
    // Hazard: the renderer's Qwen code path not working on the embedded model's files.
    const r = await loadRenderer({ dir });
    expect(r.vocabSize).toBe(VOCAB + SPECIALS.length);
    expect(r.stopTokens).toContain(VOCAB + 2);
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'code_interpreter',
          description: 'Run Python code.',
          parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        },
      },
    ];
    const ids = r.renderPrompt([{ role: 'user', content: 'What is 2+2?' }], { tools });
    const text = r.decode(ids);
    expect(text).toContain('Tools:\ncode_interpreter(code: string)<|im_end|>');
    expect(text.endsWith('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    expect(ids.length).toBeLessThan(40); // vs ~700 chars of Qwen preamble
  });
});
