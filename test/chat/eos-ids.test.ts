import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, loadRenderer, type ChatRenderer } from '../../src/chat/index.js';
import { TokenizerError } from '../../src/errors/chat-errors.js';
import { codeInterpreter } from '../../src/env/code-interpreter.js';
import { runGroup } from '../../src/rollout/index.js';
import { DEFAULT_BUDGETS } from '../../src/rollout/types.js';
import { fakeSandbox } from '../../src/testing/index.js';
import type { SamplingClient } from '../../src/backend/types.js';
import { CODE_TOOL, QWEN3_DIR } from './qwen3-fixture.js';

/** Qwen3's generation_config.json lists both ids (transformers stops at any of them). */
const QWEN3_GENERATION_CONFIG = { bos_token_id: 151643, eos_token_id: [151645, 151643], pad_token_id: 151643, temperature: 0.6 };
const IM_END = 151645;
const ENDOFTEXT = 151643;

const tokenizerJson = JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
const tokenizerConfig = JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
const CALL = '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(12)"}}\n</tool_call>';

describe('every EOS id of generation_config.json stops a turn', () => {
  let r: ChatRenderer;
  let dir: string;
  beforeAll(() => {
    r = createRenderer({ tokenizerJson, tokenizerConfig, generationConfig: QWEN3_GENERATION_CONFIG });
    dir = mkdtempSync(join(tmpdir(), 'agentrl-eos-'));
    symlinkSync(join(QWEN3_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    symlinkSync(join(QWEN3_DIR, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
    writeFileSync(join(dir, 'generation_config.json'), JSON.stringify(QWEN3_GENERATION_CONFIG));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds <|endoftext|> to the stop tokens, from the object or the folder', async () => {
    expect(r.stopTokens).toEqual([IM_END, ENDOFTEXT]);
    expect(r.stopStrings).toEqual(['<|im_end|>', '<|endoftext|>']);
    const fromDir = await loadRenderer({ dir });
    expect(fromDir.stopTokens).toEqual([IM_END, ENDOFTEXT]);
    // A single number is accepted too; without the file only the tokenizer's own EOS stops.
    expect(createRenderer({ tokenizerJson, tokenizerConfig, generationConfig: { eos_token_id: ENDOFTEXT } }).stopTokens).toEqual([IM_END, ENDOFTEXT]);
    expect((await loadRenderer({ dir: QWEN3_DIR })).stopTokens).toEqual([IM_END]);
  });

  it('rejects an eos_token_id that is not an id of the vocabulary', () => {
    expect(() => createRenderer({ tokenizerJson, tokenizerConfig, generationConfig: { eos_token_id: 'x' } })).toThrow(TokenizerError);
    expect(() => createRenderer({ tokenizerJson, tokenizerConfig, generationConfig: { eos_token_id: [10_000_000] } })).toThrow(TokenizerError);
  });

  it('parses a tool call that ends in <|endoftext|> as a tool call', () => {
    expect(r.parseAssistant(`${CALL}<|endoftext|>`, [CODE_TOOL])).toMatchObject({ kind: 'tool' });
    expect(r.parseAssistant(`${CALL}<|im_end|>`, [CODE_TOOL])).toMatchObject({ kind: 'tool' });
  });

  it('runs the tool when the sampler stops on <|endoftext|> (not invalid)', async () => {
    let call = 0;
    const sampler: SamplingClient = {
      async sample(_prompt, params) {
        expect(params.stop).toEqual([IM_END, ENDOFTEXT]);
        const text = call++ === 0 ? CALL : 'So \\boxed{12}';
        const tokens = [...r.encode(text), ENDOFTEXT];
        return Array.from({ length: params.numSamples ?? 1 }, () => ({ tokens, logprobs: tokens.map(() => -1), stopReason: 'stop' as const }));
      },
      async computeLogprobs(tokens) {
        return tokens.map(() => null);
      },
    };
    const env = codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '12\n' })), systemPrompt: null });
    const [t] = await runGroup(
      { sampler, renderer: r, env, budgets: DEFAULT_BUDGETS, templateKwargs: { enable_thinking: false } },
      { example: { id: 'q', question: '6+6?', answer: '12' }, groupSize: 1 },
    );
    expect(t!.turns[0]!.action.kind).toBe('tool');
    expect(t!.toolCalls).toBe(1);
    expect(t!.stopReason).toBe('answer');
    expect(t!.finalText).toBe('So \\boxed{12}');
  });
});
