import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMathDataset, localBackend } from 'agentrl';
import { tokenizerVocabSize } from '../../src/backend/local/assets.js';
import { MODEL, PATHS } from '../../examples/retool/config.js';
import { renderOnlyEnv } from '../../examples/retool/demos.js';
import { PATHS as SEARCH_PATHS } from '../../examples/search-agent/config.js';
import { PATHS as SQL_PATHS } from '../../examples/sql-agent/config.js';

const assets = new URL('../../assets/local-model', import.meta.url).pathname;

describe('shipped SFT checkpoints', () => {
  it('match the bundled tokenizer (regenerating the tokenizer invalidates them)', () => {
    // Hazard: a tokenizer change landing without the checkpoints the main job starts from.
    const vocab = tokenizerVocabSize(assets);
    for (const dir of [PATHS.sftCheckpoint, SEARCH_PATHS.sftCheckpoint, SQL_PATHS.sftCheckpoint]) {
      const cfg = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8')) as { model: { vocabSize: number } };
      expect(cfg.model.vocabSize, dir).toBe(vocab);
    }
  });

  describe('ReTool cold start', () => {
    const backend = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
    afterAll(() => backend.close());

    it('copies the question numbers into its code when it calls the interpreter (greedy)', async () => {
      // Hazard: a checkpoint that learned the protocol but not the copy, so every answer is wrong and RL has no
      // signal (the state before the tokenizer was made for the embedded model).
      const renderer = await backend.renderer();
      const sampler = await backend.saveWeightsForSampler();
      const env = renderOnlyEnv();
      const dev = await loadMathDataset(PATHS.dev, { limit: 12 });
      let calls = 0;
      let copied = 0;
      for (const ex of dev) {
        const prompt = renderer.renderPrompt(await env.initialMessages(ex), { tools: env.tools, addGenerationPrompt: true });
        const [out] = await sampler.sample(prompt, { maxTokens: 48, temperature: 0, stop: renderer.stopTokens });
        const text = renderer.decode(out!.tokens);
        if (!text.includes('<tool_call>')) continue;
        calls++;
        if (text.includes(String(ex.meta?.['expression']))) copied++;
      }
      expect(calls).toBeGreaterThanOrEqual(3);
      expect(copied / calls).toBeGreaterThanOrEqual(0.6);
    }, 120_000);
  });
});
