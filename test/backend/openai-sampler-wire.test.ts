import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Renderer } from '../../src/chat/types.js';
import { createHttpServer, type HttpServer } from '../../src/http/http-server.js';
import { openaiCompatibleSampler } from '../../src/backend/openai/openai-sampler.js';
import { SamplerHttpError, SamplerResponseError, SamplerUnavailableError } from '../../src/errors/sampler-errors.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { localRenderer, LOCAL_MODEL_DIR } from '../helpers/local-renderer.js';

// A scripted inference server: each test sets `answer` (status + body) and reads the request bodies it got.
let server: HttpServer;
let url: string;
let renderer: Renderer;
const seen: { path: string; body: Record<string, unknown> }[] = [];
let held: Promise<void> = Promise.resolve();
let release: () => void = () => {};
let answer: (path: string, body: Record<string, unknown>, i: number) => { status?: number; body: unknown; headers?: Record<string, string> };

beforeAll(async () => {
  renderer = await localRenderer();
  server = createHttpServer({ name: 'fake-inference' });
  for (const path of ['/v1/completions', '/generate']) {
    server.app.post(path, async (req, reply) => {
      const body = req.body as Record<string, unknown>;
      seen.push({ path, body });
      const a = answer(path, body, seen.length - 1);
      await reply
        .code(a.status ?? 200)
        .headers(a.headers ?? {})
        .send(a.body);
    });
  }
  server.app.post('/hang/v1/completions', async () => {
    await held;
    return { choices: [] };
  });
  url = await server.listen();
});
afterAll(() => server?.close());

const vllm = () => openaiCompatibleSampler({ baseUrl: `${url}/v1`, model: 'm', renderer, maxRetries: 0 });
const choice = (index: number, extra: Record<string, unknown>) => ({ index, text: 'x', finish_reason: 'stop', ...extra });

describe('openaiCompatibleSampler, vLLM flavor, on the wire', () => {
  it('sends a token-id prompt with return_token_ids, logprobs and the stop ids, and reads ids and logprobs back in index order', async () => {
    seen.length = 0;
    answer = () => ({
      body: {
        choices: [
          choice(1, { token_ids: [7, 8, 2691], logprobs: { token_logprobs: [-0.5, -0.25, -0.125] } }),
          choice(0, { token_ids: [5, 6], finish_reason: 'length', logprobs: { token_logprobs: [-1, -2] } }),
        ],
      },
    });
    const out = await vllm().sample([1, 2, 3], { numSamples: 2, maxTokens: 2, seed: 4, temperature: 0.7, topK: 0, stop: [9] });
    expect(out).toEqual([
      { tokens: [5, 6], logprobs: [-1, -2], stopReason: 'length' },
      { tokens: [7, 8, 2691], logprobs: [-0.5, -0.25, -0.125], stopReason: 'stop' },
    ]);
    const b = seen[0]!.body;
    expect(seen[0]!.path).toBe('/v1/completions');
    expect(b).toMatchObject({ model: 'm', prompt: [1, 2, 3], n: 2, max_tokens: 2, seed: 4, temperature: 0.7, logprobs: 0, return_token_ids: true });
    expect(b.stop_token_ids).toEqual([9, ...renderer.stopTokens]);
    // off is sent as -1, not omitted: vLLM fills omitted settings from generation_config.json (Qwen3: top_k 20)
    expect(b).toMatchObject({ top_k: -1, min_p: 0, repetition_penalty: 1 });
  });

  it('reads ids from "token_id:N" logprob tokens when the server has no return_token_ids', async () => {
    answer = () => ({ body: { choices: [choice(0, { logprobs: { tokens: ['token_id:12', 'token_id:2691'], token_logprobs: [-0.1, -0.2] } })] } });
    expect(await vllm().sample([1], { maxTokens: 4 })).toEqual([{ tokens: [12, 2691], logprobs: [-0.1, -0.2], stopReason: 'stop' }]);
  });

  it('a server that returns no token ids is a typed error naming return_token_ids, never a re-encode of the text', async () => {
    // Hazard: silently tokenising choices[].text, which need not give the sampled ids.
    answer = () => ({ body: { choices: [choice(0, { text: 'hello', logprobs: { tokens: ['hel', 'lo'], token_logprobs: [-1, -1] } })] } });
    const err = await vllm()
      .sample([1], { maxTokens: 4 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SamplerResponseError);
    expect(err).toMatchObject({ code: 'SAMPLER_RESPONSE', option: 'return_token_ids', field: 'choices[0].token_ids' });
    expect((err as Error).message).toContain('return_token_ids');
  });

  it('missing logprobs, a wrong number of choices, or an abort finish reason are typed errors', async () => {
    answer = () => ({ body: { choices: [choice(0, { token_ids: [3] })] } });
    await expect(vllm().sample([1], { maxTokens: 4 })).rejects.toMatchObject({ code: 'SAMPLER_RESPONSE', option: 'logprobs' });
    answer = () => ({ body: { choices: [choice(0, { token_ids: [3], logprobs: { token_logprobs: [-1] } })] } });
    await expect(vllm().sample([1], { maxTokens: 4, numSamples: 2 })).rejects.toMatchObject({ code: 'SAMPLER_RESPONSE', field: 'choices' });
    answer = () => ({ body: { choices: [choice(0, { token_ids: [3], finish_reason: 'abort', logprobs: { token_logprobs: [-1] } })] } });
    await expect(vllm().sample([1], { maxTokens: 4 })).rejects.toMatchObject({ code: 'SAMPLER_RESPONSE', field: 'choices[0].finish_reason' });
  });

  it('retries 503 (honouring retry-after-ms), does not retry 400, and reports the server message', async () => {
    seen.length = 0;
    answer = (_p, _b, i) =>
      i === 0
        ? { status: 503, body: { error: { message: 'warming up' } }, headers: { 'retry-after-ms': '5' } }
        : { body: { choices: [choice(0, { token_ids: [4], logprobs: { token_logprobs: [-3] } })] } };
    const retrying = openaiCompatibleSampler({ baseUrl: `${url}/v1`, model: 'm', renderer, maxRetries: 1 });
    expect(await retrying.sample([1], { maxTokens: 1 })).toEqual([{ tokens: [4], logprobs: [-3], stopReason: 'stop' }]);
    expect(seen).toHaveLength(2);

    seen.length = 0;
    answer = () => ({ status: 400, body: { error: { message: 'max_tokens is too large', type: 'invalid_request_error' } } });
    const err = await retrying.sample([1], { maxTokens: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SamplerHttpError);
    expect(err).toMatchObject({ status: 400, retryable: false, serverMessage: 'max_tokens is too large' });
    expect(seen).toHaveLength(1);
  });

  it('a signal passed with the params aborts the request in flight', async () => {
    // Hazard: an aborted rollout leaving its generation request (and a concurrency slot) held until the server answers.
    held = new Promise<void>((r) => (release = r));
    const s = openaiCompatibleSampler({ baseUrl: `${url}/hang/v1`, model: 'm', renderer, maxRetries: 0 });
    const ctl = new AbortController();
    const p = s.sample([1], { maxTokens: 1, signal: ctl.signal } as never);
    setTimeout(() => ctl.abort(new Error('stop now')), 20);
    await expect(p).rejects.toThrow('stop now');
    release();
  });

  it('an unreachable server is SamplerUnavailableError', async () => {
    const dead = createHttpServer({ name: 'dead' });
    const deadUrl = await dead.listen();
    await dead.close();
    const s = openaiCompatibleSampler({ baseUrl: `${deadUrl}/v1`, model: 'm', renderer, maxRetries: 0 });
    await expect(s.sample([1], { maxTokens: 1 })).rejects.toBeInstanceOf(SamplerUnavailableError);
  });

  it('rejects invalid options with every problem listed', () => {
    try {
      openaiCompatibleSampler({ baseUrl: 'not a url', concurrency: 0 } as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toEqual(expect.arrayContaining(['baseUrl', 'concurrency', 'tokenizer', 'model']));
    }
  });
});

describe('openaiCompatibleSampler, SGLang flavor', () => {
  const sglang = () => openaiCompatibleSampler({ baseUrl: url, flavor: 'sglang', renderer, maxRetries: 0 });

  it('sends n /generate requests with input_ids, return_logprob and seeds seed+i, and reads [logprob, id] pairs', async () => {
    seen.length = 0;
    answer = (_p, body) => {
      const seed = (body.sampling_params as { sampling_seed: number }).sampling_seed;
      return {
        body: {
          text: 'x',
          meta_info: {
            output_token_logprobs: [
              [-0.5, seed, null],
              [-0.25, 2691, null],
            ],
            finish_reason: { type: 'stop', matched: 2691 },
          },
        },
      };
    };
    const out = await sglang().sample([1, 2], { numSamples: 2, maxTokens: 8, seed: 100, temperature: 0.6 });
    expect(out).toEqual([
      { tokens: [100, 2691], logprobs: [-0.5, -0.25], stopReason: 'stop' },
      { tokens: [101, 2691], logprobs: [-0.5, -0.25], stopReason: 'stop' },
    ]);
    expect(seen.every((r) => r.path === '/generate')).toBe(true);
    expect(seen[0]!.body).toMatchObject({
      input_ids: [1, 2],
      return_logprob: true,
      sampling_params: { max_new_tokens: 8, temperature: 0.6, top_k: -1, stop_token_ids: [...renderer.stopTokens] },
    });
  });

  it('a /generate answer without output_token_logprobs is a typed error naming return_logprob', async () => {
    answer = () => ({ body: { text: 'hello', meta_info: { finish_reason: { type: 'length' } } } });
    await expect(sglang().sample([1], { maxTokens: 2 })).rejects.toMatchObject({ code: 'SAMPLER_RESPONSE', option: 'return_logprob' });
  });

  // Issue 24 §3: prompt-logprob rows must describe the request's tokens, with finite logprobs ≤ 0 — as on the vLLM path.
  const prompt = [11, 12, 13, 14];
  const rowsOf = (ids: readonly unknown[], lps: readonly unknown[]) => ids.map((id, i) => [lps[i], id, null]);
  it('computeLogprobs reads [logprob, id] rows that match the request', async () => {
    answer = () => ({ body: { meta_info: { input_token_logprobs: rowsOf(prompt, [null, -0.5, -1.25, -2]) } } });
    await expect(sglang().computeLogprobs(prompt)).resolves.toEqual([null, -0.5, -1.25, -2]);
  });

  const badRows: [string, unknown[], number][] = [
    ['ids shifted by one', rowsOf([12, 13, 14, 15], [null, -0.5, -1, -2]), 0],
    ['ids shifted the other way', rowsOf([10, 11, 12, 13], [null, -0.5, -1, -2]), 0],
    ['a null id', rowsOf([11, null, 13, 14], [null, -0.5, -1, -2]), 1],
    ['one wrong id late', rowsOf([11, 12, 13, 99], [null, -0.5, -1, -2]), 3],
    ['a "NaN" string', rowsOf(prompt, [null, 'NaN', -1, -2]), 1],
    ['a null logprob past position 0', rowsOf(prompt, [null, -0.5, null, -2]), 2],
    ['a positive logprob', rowsOf(prompt, [null, -0.5, 0.75, -2]), 2],
    ['a numeric string', rowsOf(prompt, [null, -0.5, -1, '-2']), 3],
    ['a row that is not a list', [[null, 11, null], { logprob: -1, id: 12 }, [-1, 13, null], [-2, 14, null]], 1],
  ];
  for (const [name, rows, at] of badRows) {
    it(`computeLogprobs refuses prompt-logprob rows with ${name}, naming position ${at}`, async () => {
      answer = () => ({ body: { meta_info: { input_token_logprobs: rows } } });
      const err = await sglang()
        .computeLogprobs(prompt)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SamplerResponseError);
      expect(err).toMatchObject({ code: 'SAMPLER_RESPONSE', field: `meta_info.input_token_logprobs[${at}]` });
    });
  }

  it('the vLLM path refuses the same kinds (an entry for another token, a non-number, a positive logprob)', async () => {
    const entries = (lps: unknown[], ids: readonly number[] = prompt) => [null, ...ids.slice(1).map((id, i) => ({ [String(id)]: { logprob: lps[i] } }))];
    const cases: [unknown[], number][] = [
      [entries([-0.5, -1, -2], [11, 13, 14, 15]), 1],
      [entries(['NaN', -1, -2]), 1],
      [entries([-0.5, 0.5, -2]), 2],
      [entries([-0.5, -1, null]), 3],
    ];
    for (const [pl, at] of cases) {
      answer = () => ({ body: { choices: [choice(0, { prompt_logprobs: pl, token_ids: [1], logprobs: { token_logprobs: [-1] } })] } });
      await expect(vllm().computeLogprobs(prompt)).rejects.toMatchObject({ code: 'SAMPLER_RESPONSE', field: `choices[0].prompt_logprobs[${at}]` });
    }
  });
});

describe('stop tokens from the model folder', () => {
  it('every eos_token_id of generation_config.json ends a sequence, besides the template end-of-turn token', async () => {
    // Hazard: Qwen3 instruct lists <|im_end|> and <|endoftext|> as EOS; stopping on only one runs past the other.
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-model-'));
    try {
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) cpSync(join(LOCAL_MODEL_DIR, f), join(dir, f));
      writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [2691, 2689] }));
      seen.length = 0;
      answer = () => ({ body: { choices: [choice(0, { token_ids: [2689], logprobs: { token_logprobs: [-1] } })] } });
      const s = openaiCompatibleSampler({ baseUrl: `${url}/v1`, model: 'm', tokenizer: dir, maxRetries: 0 });
      await s.sample([1], { maxTokens: 3 });
      expect(seen[0]!.body.stop_token_ids).toEqual([2691, 2689]);
      const r = await s.renderer();
      expect(r.stopTokens).toEqual([2691, 2689]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
