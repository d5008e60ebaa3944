import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRenderer, readGenerationEos } from '../../src/chat/load-renderer.js';
import { TokenizerError } from '../../src/errors/chat-errors.js';
import { LOCAL_MODEL_DIR } from '../helpers/local-renderer.js';

// A copy of the bundled model folder with a generation_config.json written per test.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentrl-genconfig-'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) cpSync(join(LOCAL_MODEL_DIR, f), join(dir, f));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const genConfig = (v: unknown) => writeFileSync(join(dir, 'generation_config.json'), JSON.stringify(v));

describe('generation_config.json end-of-sequence ids', () => {
  it('reads one id or a list; no file means none', async () => {
    expect(await readGenerationEos(LOCAL_MODEL_DIR)).toEqual([]);
    genConfig({ eos_token_id: 2689 });
    expect(await readGenerationEos(dir)).toEqual([2689]);
    genConfig({ eos_token_id: [2691, 2689] });
    expect(await readGenerationEos(dir)).toEqual([2691, 2689]);
  });

  it('loadRenderer adds them to the stop tokens and stop strings (explicit eosTokenIds win)', async () => {
    genConfig({ eos_token_id: [2691, 2689] });
    const r = await loadRenderer({ dir });
    expect(r.stopTokens).toEqual([2691, 2689]);
    expect(r.stopStrings).toEqual(['<|im_end|>', '<|endoftext|>']);
    expect(r.parseAssistant('the answer<|endoftext|>')).toMatchObject({ kind: 'answer', content: 'the answer' });
    expect((await loadRenderer({ dir, eosTokenIds: [] })).stopTokens).toEqual([2691]);
  });

  it('a malformed eos_token_id or an id outside the vocabulary is a TokenizerError', async () => {
    genConfig({ eos_token_id: 'eos' });
    await expect(loadRenderer({ dir })).rejects.toBeInstanceOf(TokenizerError);
    genConfig({ eos_token_id: [99_999] });
    await expect(loadRenderer({ dir })).rejects.toThrow(/99999/);
  });
});
