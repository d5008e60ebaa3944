import { mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadModelFolderRenderer, TINKER_HOSTED_URL } from 'agentrl/internal';
import { resolveTinkerOptions } from '../../../src/backend/tinker/options.js';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';

const base = { baseModel: 'Qwen/Qwen3-8B', renderer: '/models/qwen3' };

describe('tinkerBackend options', () => {
  it('takes baseUrl and apiKey from TINKER_BASE_URL / TINKER_API_KEY, then the hosted service', () => {
    const env = { TINKER_BASE_URL: 'http://10.0.0.2:8000/', TINKER_API_KEY: 'tml-env' };
    const o = resolveTinkerOptions(base, env);
    expect([o.baseUrl, o.apiKey]).toEqual(['http://10.0.0.2:8000', 'tml-env']);
    expect(resolveTinkerOptions({ ...base, baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }, env).baseUrl).toBe('http://127.0.0.1:9');
    expect(resolveTinkerOptions(base, { TINKER_API_KEY: 'tml-x' }).baseUrl).toBe(TINKER_HOSTED_URL);
    expect(resolveTinkerOptions({ ...base, baseUrl: 'http://127.0.0.1:8000' }, {}).apiKey).toBeUndefined();
  });

  it('fills LoRA, timeout and retry defaults', () => {
    const o = resolveTinkerOptions({ ...base, apiKey: 'tml-x', lora: { rank: 16 } }, {});
    expect(o.lora).toEqual({ rank: 16, trainMlp: true, trainAttn: true, trainUnembed: true });
    expect(o.timeouts).toEqual({ connectMs: 5_000, requestMs: 60_000, pollMs: 45_000, heartbeatMs: 10_000, silenceMs: 600_000, futureMs: 1_200_000 });
    expect(o.retry.budgetMs).toBe(300_000);
    expect([o.maxChunkDatums, o.wireFormat, o.allowTemperedSampling]).toEqual([1024, 'auto', false]);
  });

  it('reports every problem with its dotted path, and asks for a key for the hosted service', () => {
    let err: unknown;
    try {
      resolveTinkerOptions({ baseModel: '', renderer: 3, lora: { rank: -1, alpha: 2 }, maxChunkDatums: 5000, baseUrl: 'ftp://x' } as never, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const paths = (err as ConfigError).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['baseModel', 'baseUrl', 'lora', 'lora.rank', 'maxChunkDatums', 'renderer'].sort());
    expect(() => resolveTinkerOptions(base, {})).toThrow(/apiKey: required for the hosted service/);
  });
});

describe('loadModelFolderRenderer', () => {
  it('adds generation_config.json eos_token_id tokens to the stop tokens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hf-folder-'));
    try {
      await copyFile(join(LOCAL_MODEL_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
      await copyFile(join(LOCAL_MODEL_DIR, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
      const without = await loadModelFolderRenderer(dir);
      const tok = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')) as { added_tokens: { id: number; content: string }[] };
      const endoftext = tok.added_tokens.find((t) => t.content === '<|endoftext|>')!.id;
      expect(without.stopTokens).not.toContain(endoftext);
      await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [without.stopTokens[0], endoftext] }));
      const withGen = await loadModelFolderRenderer(dir);
      expect(withGen.stopTokens).toEqual([...without.stopTokens, endoftext]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
