import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SamplingClient, TrainingBackend } from '../../../src/backend/types.js';
import type { ChatRenderer } from '../../../src/chat/renderer.js';
import type { Renderer } from '../../../src/chat/types.js';
import type { HttpServer } from '../../../src/http/http-server.js';
import { scriptedSampler, type Script } from '../../../src/testing/scripted-sampler.js';
import { CODE_INTERPRETER_TOOL } from '../../../src/env/code-interpreter.js';
import { localRenderer } from '../../helpers/local-renderer.js';
import { loadQwen3 } from '../../chat/qwen3-fixture.js';
import { tinyBackend } from '../../backend/helpers.js';
import { serveV1 } from './helpers.js';

// The official `openai` client (a client nobody here wrote) against the /v1 surface.
const KEY = 'test-key';
let backend: TrainingBackend;
let inProcess: SamplingClient;
let local: Renderer;
let qwen: ChatRenderer;
let tiny: { server: HttpServer; baseUrl: string };
let scripted: { server: HttpServer; baseUrl: string };
let script: Script = () => '';
const prompts: string[] = [];

beforeAll(async () => {
  backend = tinyBackend();
  [inProcess, local, qwen] = await Promise.all([backend.saveWeightsForSampler(), localRenderer(), loadQwen3({ templateKwargs: { enable_thinking: false } })]);
  tiny = await serveV1({ sampler: inProcess, renderer: local, modelName: 'tiny', maxContextTokens: 128 }, { apiKey: KEY });
  const sampler = scriptedSampler({
    renderer: qwen,
    logprob: -0.5,
    script: (info) => {
      prompts.push(info.prompt);
      return script(info);
    },
  });
  scripted = await serveV1({ sampler: () => sampler, renderer: qwen, modelName: 'Qwen/Qwen3-8B' }, { apiKey: KEY });
});
afterAll(async () => {
  await tiny?.server.close();
  await scripted?.server.close();
  await backend?.close();
});

const client = (baseURL: string, apiKey = KEY) => new OpenAI({ baseURL, apiKey, maxRetries: 0 });

describe('official openai client: models and completions', () => {
  it('lists the served model', async () => {
    const models = await client(tiny.baseUrl).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['tiny']);
  });

  it('a token-id completion returns the in-process tokens and logprobs (return_token_ids, logprobs: 0)', async () => {
    const prompt = local.renderPrompt([{ role: 'user', content: 'hi' }]);
    const r = await client(tiny.baseUrl).completions.create({
      model: 'tiny',
      prompt,
      max_tokens: 10,
      seed: 3,
      temperature: 0.9,
      logprobs: 0,
      return_token_ids: true,
    } as OpenAI.CompletionCreateParamsNonStreaming);
    const [want] = await inProcess.sample(prompt, { maxTokens: 10, seed: 3, temperature: 0.9, stop: local.stopTokens });
    const c = r.choices[0] as OpenAI.CompletionChoice & { token_ids: number[]; prompt_token_ids: number[] };
    expect(c.token_ids).toEqual(want!.tokens);
    expect(c.prompt_token_ids).toEqual(prompt);
    expect(c.logprobs!.token_logprobs).toEqual(want!.logprobs);
    expect(c.finish_reason).toBe(want!.stopReason);
    expect(c.text).toBe(local.decode(want!.stopReason === 'stop' ? want!.tokens.slice(0, -1) : want!.tokens));
    expect(r.usage).toEqual({ prompt_tokens: prompt.length, completion_tokens: want!.tokens.length, total_tokens: prompt.length + want!.tokens.length });
  });

  it('a text prompt with echo and logprobs puts the prompt first (first logprob null), as vLLM does; prompt_logprobs too', async () => {
    const text = 'the cat sat';
    const ids = local.encode(text);
    const r = await client(tiny.baseUrl).completions.create({
      model: 'tiny',
      prompt: text,
      max_tokens: 3,
      seed: 1,
      echo: true,
      logprobs: 0,
      prompt_logprobs: 0,
    } as OpenAI.CompletionCreateParamsNonStreaming);
    const c = r.choices[0] as OpenAI.CompletionChoice & { prompt_logprobs: (Record<string, { logprob: number }> | null)[] };
    const plp = await inProcess.computeLogprobs(ids);
    expect(c.text.startsWith(text)).toBe(true);
    expect(c.logprobs!.token_logprobs!.slice(0, ids.length)).toEqual(plp);
    expect(c.logprobs!.token_logprobs).toHaveLength(ids.length + 3);
    expect(c.prompt_logprobs[0]).toBeNull();
    expect(c.prompt_logprobs.slice(1).map((e, k) => e![String(ids[k + 1])]!.logprob)).toEqual(plp.slice(1));
  });

  // Issue 24 §7: logprobs: k (the way completions clients ask for token logprobs), with vLLM's return_token_ids.
  for (const k of [1, 5, 20]) {
    it(`logprobs: ${k} returns the sampled token's logprob and the ${k} most likely tokens at each position`, async () => {
      const prompt = local.renderPrompt([{ role: 'user', content: 'hello there' }]);
      const r = await client(tiny.baseUrl).completions.create({
        model: 'tiny',
        prompt,
        n: 2,
        max_tokens: 6,
        seed: 11,
        temperature: 0.8,
        logprobs: k,
        return_token_ids: true,
      } as OpenAI.CompletionCreateParamsNonStreaming);
      const want = await inProcess.sample(prompt, { numSamples: 2, maxTokens: 6, seed: 11, temperature: 0.8, stop: local.stopTokens, topLogprobs: k });
      let completion = 0;
      r.choices.forEach((choice, j) => {
        const c = choice as OpenAI.CompletionChoice & { token_ids: number[] };
        const w = want[j]!;
        completion += w.tokens.length;
        expect(c.token_ids).toEqual(w.tokens);
        expect(c.logprobs!.token_logprobs).toEqual(w.logprobs);
        expect(c.finish_reason).toBe(w.stopReason);
        c.logprobs!.top_logprobs!.forEach((top, i) => {
          const sampled = local.decode([w.tokens[i]!]);
          expect(top![sampled]).toBe(w.logprobs[i]);
          const alts = w.topLogprobs![i]!;
          expect(alts).toHaveLength(k);
          for (const a of alts) expect(top![local.decode([a.token])]).toBeDefined();
          // most likely first, all ≤ 0, and no alternative is less likely than one left out: sorted, and ≥ the sampled one when it is not listed
          for (let q = 1; q < alts.length; q++) expect(alts[q - 1]!.logprob).toBeGreaterThanOrEqual(alts[q]!.logprob);
          expect(alts.every((a) => a.logprob <= 0)).toBe(true);
          if (!alts.some((a) => a.token === w.tokens[i])) expect(w.logprobs[i]!).toBeLessThanOrEqual(alts[k - 1]!.logprob);
        });
      });
      expect(r.usage).toEqual({ prompt_tokens: prompt.length, completion_tokens: completion, total_tokens: prompt.length + completion });
    });
  }

  it('logprobs: 1 with return_tokens_as_token_ids keys alternatives by token_id:N; streamed choices carry the same', async () => {
    const prompt = [5, 6, 7, 8];
    const base = { model: 'tiny', prompt, max_tokens: 5, seed: 4, logprobs: 1, return_tokens_as_token_ids: true } as const;
    const r = await client(tiny.baseUrl).completions.create(base as unknown as OpenAI.CompletionCreateParamsNonStreaming);
    const [w] = await inProcess.sample(prompt, { maxTokens: 5, seed: 4, stop: local.stopTokens, topLogprobs: 1 });
    const top = r.choices[0]!.logprobs!.top_logprobs!;
    top.forEach((t, i) => {
      expect(t![`token_id:${w!.tokens[i]}`]).toBe(w!.logprobs[i]);
      expect(t![`token_id:${w!.topLogprobs![i]![0]!.token}`]).toBe(w!.topLogprobs![i]![0]!.logprob);
    });
    const stream = await client(tiny.baseUrl).completions.create({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
    } as unknown as OpenAI.CompletionCreateParamsStreaming);
    const chunks: OpenAI.Completion[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]!.choices[0]!.logprobs!.top_logprobs).toEqual(top);
    expect(chunks[0]!.choices[0]!.finish_reason).toBe(w!.stopReason);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 4, completion_tokens: w!.tokens.length, total_tokens: 4 + w!.tokens.length });
  });

  it('chat completions: logprobs + top_logprobs k give k alternatives per token, streamed and not', async () => {
    const messages = [{ role: 'user' as const, content: 'count' }];
    for (const k of [1, 3]) {
      const r = await client(tiny.baseUrl).chat.completions.create({
        model: 'tiny',
        messages,
        max_tokens: 5,
        seed: 9,
        logprobs: true,
        top_logprobs: k,
        temperature: 0.7,
      });
      const prompt = local.renderPrompt(messages, { addGenerationPrompt: true });
      const [w] = await inProcess.sample(prompt, { maxTokens: 5, seed: 9, temperature: 0.7, stop: local.stopTokens, topLogprobs: k });
      const content = r.choices[0]!.logprobs!.content!;
      expect(content.map((e) => e.logprob)).toEqual(w!.logprobs);
      content.forEach((e, i) => {
        expect(e.top_logprobs).toHaveLength(k);
        expect(e.top_logprobs.map((a) => a.logprob)).toEqual(w!.topLogprobs![i]!.map((a) => a.logprob));
        expect(e.top_logprobs.map((a) => a.token)).toEqual(w!.topLogprobs![i]!.map((a) => local.decode([a.token])));
      });
      expect(r.choices[0]!.finish_reason).toBe(w!.stopReason);
      expect(r.usage).toMatchObject({ prompt_tokens: prompt.length, completion_tokens: w!.tokens.length });
      const stream = await client(tiny.baseUrl).chat.completions.create({
        model: 'tiny',
        messages,
        max_tokens: 5,
        seed: 9,
        logprobs: true,
        top_logprobs: k,
        temperature: 0.7,
        stream: true,
      });
      const streamed: OpenAI.ChatCompletionTokenLogprob[] = [];
      for await (const c of stream) streamed.push(...(c.choices[0]?.logprobs?.content ?? []));
      expect(streamed).toEqual(content);
    }
  });

  it('several prompts and n: choices are indexed prompt·n + sample', async () => {
    const r = await client(tiny.baseUrl).completions.create({
      model: 'tiny',
      prompt: [
        [5, 6, 7],
        [8, 9],
      ],
      n: 2,
      max_tokens: 4,
      seed: 2,
    });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });
});

describe('official openai client: streamed completions', () => {
  it('streams completions (one chunk per choice) with the same text as the non-streamed answer', async () => {
    const c = client(tiny.baseUrl);
    const params = { model: 'tiny', prompt: [5, 6, 7], max_tokens: 6, seed: 4, n: 2 };
    const whole = await c.completions.create(params);
    const stream = await c.completions.create({ ...params, stream: true });
    const texts = ['', ''];
    const finish: (string | null)[] = [null, null];
    for await (const chunk of stream) {
      for (const ch of chunk.choices) {
        texts[ch.index] += ch.text;
        finish[ch.index] = ch.finish_reason ?? finish[ch.index]!;
      }
    }
    expect(texts).toEqual(whole.choices.map((x) => x.text));
    expect(finish).toEqual(whole.choices.map((x) => x.finish_reason));
  });
});

describe('official openai client: chat completions', () => {
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { ...CODE_INTERPRETER_TOOL.function, parameters: { ...CODE_INTERPRETER_TOOL.function.parameters } } },
  ];

  it('renders the messages and tools with the chat template, and returns the model\u2019s <tool_call> as tool_calls', async () => {
    script = () => 'Let me compute it.\n<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(12*7)"}}\n</tool_call>';
    prompts.length = 0;
    const r = await client(scripted.baseUrl).chat.completions.create({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: 'What is 12*7?' }],
      tools,
      logprobs: true,
    });
    const c = r.choices[0]!;
    expect(c.finish_reason).toBe('tool_calls');
    expect(c.message.content).toBe('Let me compute it.');
    expect(c.message.tool_calls).toHaveLength(1);
    const call = c.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('code_interpreter');
    expect(JSON.parse(call.function.arguments)).toEqual({ code: 'print(12*7)' });
    expect(call.id).toMatch(/^call_/);
    expect(c.logprobs!.content!.every((e) => e.logprob === -0.5)).toBe(true);
    // the prompt is Qwen3's template with the tool block: exactly what renderPrompt gives
    expect(prompts[0]).toBe(qwen.renderText([{ role: 'user', content: 'What is 12*7?' }], { tools: [CODE_INTERPRETER_TOOL] }));
    expect(prompts[0]).toContain('<tools>');
  });

  it('a follow-up with the assistant\u2019s tool_calls and the tool result renders <tool_response>, and a plain answer ends with stop', async () => {
    script = () => 'The answer is \\boxed{84}.';
    prompts.length = 0;
    const r = await client(scripted.baseUrl).chat.completions.create({
      model: 'Qwen/Qwen3-8B',
      tools,
      messages: [
        { role: 'user', content: 'What is 12*7?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'code_interpreter', arguments: '{"code": "print(12*7)"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '84' },
      ],
    });
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.choices[0]!.message.content).toBe('The answer is \\boxed{84}.');
    expect(r.choices[0]!.message.tool_calls ?? []).toHaveLength(0);
    expect(prompts[0]).toContain('<tool_response>\n84\n</tool_response>');
    expect(prompts[0]).toContain('"arguments": {"code": "print(12*7)"}');
  });

  it('streams chat completions as server-sent events: content deltas, tool_calls deltas, finish reason, usage', async () => {
    script = () => 'Checking.\n<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(1)"}}\n</tool_call>';
    const stream = await client(scripted.baseUrl).chat.completions.create({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: 'go' }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    const calls: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const ch of chunk.choices) {
        content += ch.delta.content ?? '';
        calls.push(...(ch.delta.tool_calls ?? []));
        finish = ch.finish_reason ?? finish;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe('Checking.');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.function!.name).toBe('code_interpreter');
    expect(JSON.parse(calls[0]!.function!.arguments!)).toEqual({ code: 'print(1)' });
    expect(finish).toBe('tool_calls');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('streamed text equals the non-streamed text for the same seed (embedded engine)', async () => {
    const params = { model: 'tiny', messages: [{ role: 'user' as const, content: 'hello' }], max_tokens: 20, seed: 8 };
    const whole = await client(tiny.baseUrl).chat.completions.create(params);
    const stream = await client(tiny.baseUrl).chat.completions.create({ ...params, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(text.length).toBeGreaterThan(0);
  });
});

describe('official openai client: errors in OpenAI\u2019s shape', () => {
  it('unknown model → 404 model_not_found', async () => {
    const err = await client(tiny.baseUrl)
      .completions.create({ model: 'nope', prompt: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'not_found_error' });
  });

  it('wrong key → 401 AuthenticationError', async () => {
    const err = await client(tiny.baseUrl, 'wrong')
      .models.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ status: 401, type: 'authentication_error' });
  });

  it('invalid and unsupported parameters → 400 naming the parameter', async () => {
    const c = client(tiny.baseUrl);
    const bad = async (p: Record<string, unknown>) =>
      c.completions.create({ model: 'tiny', prompt: 'x', ...p } as OpenAI.CompletionCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(await bad({ n: 0 })).toMatchObject({ status: 400, param: 'n', type: 'invalid_request_error' });
    expect(await bad({ stop: ['\n'] })).toMatchObject({ status: 400, param: 'stop' });
    expect(await bad({ logprobs: 21 })).toMatchObject({ status: 400, param: 'logprobs' });
    expect(await bad({ logprobs: 2, echo: true })).toMatchObject({ status: 400, param: 'logprobs' });
    expect(await bad({ presence_penalty: 0.5 })).toMatchObject({ status: 400, param: 'presence_penalty' });
    expect(await bad({ prompt: [999_999] })).toMatchObject({ status: 400, param: 'prompt' });
    for (const over of [{ logprobs: true, top_logprobs: 21 }, { top_logprobs: 2 }, { logprobs: false, top_logprobs: 1 }]) {
      const chatErr = await c.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], ...over }).catch((e: unknown) => e);
      expect(chatErr).toBeInstanceOf(OpenAI.BadRequestError);
      expect(chatErr).toMatchObject({ param: 'top_logprobs' });
    }
    // a sampler that cannot rank alternatives says so (the scripted one returns none)
    const noAlt = await client(scripted.baseUrl)
      .completions.create({ model: 'Qwen/Qwen3-8B', prompt: 'x', max_tokens: 2, logprobs: 1 })
      .catch((e: unknown) => e);
    expect(noAlt).toMatchObject({ status: 400, param: 'logprobs' });
  });

  it('a prompt longer than the context → 400; an unknown /v1 route → 404; a body over the limit → 413, all in OpenAI\u2019s shape', async () => {
    const c = client(tiny.baseUrl);
    const long = await c.completions.create({ model: 'tiny', prompt: Array(200).fill(5) }).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(OpenAI.BadRequestError);
    const res = await fetch(`${tiny.baseUrl}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
    const small = await serveV1({ sampler: inProcess, renderer: local, modelName: 'tiny' }, { maxBodyBytes: 1000 });
    try {
      const big = await fetch(`${small.baseUrl}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tiny', prompt: 'x'.repeat(5000) }),
      });
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    } finally {
      await small.server.close();
    }
  });
});
