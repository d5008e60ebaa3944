import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointError, ConfigError, referenceLoss, tinkerBackend, type Datum, type TinkerBackend } from 'agentrl/internal';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker } from './fake-tinker-server.js';

const datum = (T: number, adv = 1): Datum => ({
  modelInput: Array.from({ length: T }, (_, i) => i + 1),
  targetTokens: Array.from({ length: T }, (_, i) => i + 2),
  logprobs: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : -0.7)),
  advantages: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : adv)),
  mask: Array.from({ length: T }, (_, i) => (i === 0 ? 0 : 1)),
});

let server: FakeTinker | undefined;
let backend: TinkerBackend | undefined;
afterEach(async () => {
  await backend?.close();
  await server?.close();
  backend = undefined;
  server = undefined;
});

function make(extra: Partial<Parameters<typeof tinkerBackend>[0]> = {}): TinkerBackend {
  backend = tinkerBackend({
    baseUrl: server!.url,
    apiKey: 'tml-test',
    baseModel: 'fake/model',
    renderer: LOCAL_MODEL_DIR,
    maxContextTokens: 512,
    wireFormat: 'json',
    ...extra,
  });
  return backend;
}

describe('tinkerBackend over the JSON protocol', () => {
  it('creates a session and a LoRA model, then trains, steps, samples and reads logprobs', async () => {
    server = await FakeTinker.start();
    const b = make({ lora: { rank: 8, trainUnembed: false } });
    const { sessionId, modelId } = await b.connect();
    expect(sessionId).toBe('sess-1');
    expect(modelId).toBe('model-0');
    const cm = server.seen('/api/v1/create_model')[0]!.json!;
    expect(cm).toMatchObject({ session_id: 'sess-1', model_seq_id: 0, base_model: 'fake/model', type: 'create_model' });
    expect(cm['lora_config']).toEqual({ rank: 8, train_unembed: false, train_mlp: true, train_attn: true });

    const fb = await b.forwardBackward([datum(4), datum(3)], { kind: 'importance_sampling', aggregation: 'token-sum' });
    expect(fb.logprobs).toEqual([
      [-0.5, -0.5, -0.5, -0.5],
      [-0.5, -0.5, -0.5],
    ]);
    // token-sum: −Σ r·A over 5 masked tokens, r = exp(−0.5 + 0.7)
    expect(fb.metrics['loss']).toBeCloseTo(-5 * Math.exp(0.2), 5);
    expect(fb.metrics['tokens']).toBe(5);
    expect(fb.metrics['kl_sample_train']).toBeCloseTo(-0.2, 6);
    const sent = server.seen('/api/v1/forward_backward')[0]!.json!;
    expect(sent['seq_id']).toBe(1);
    const input = sent['forward_backward_input'] as { loss_fn: string; data: { loss_fn_inputs: Record<string, { data: number[]; dtype: string }> }[] };
    expect(input.loss_fn).toBe('importance_sampling');
    expect(input.data[0]!.loss_fn_inputs['target_tokens']).toMatchObject({ data: [2, 3, 4, 5], dtype: 'int64' });
    expect(input.data[0]!.loss_fn_inputs['advantages']!.data).toEqual([0, 1, 1, 1]);

    const step = await b.optimStep({ learningRate: 1e-4 });
    expect(step.metrics['learning_rate']).toBe(1e-4);
    expect(server.seen('/api/v1/optim_step')[0]!.json).toMatchObject({
      seq_id: 2,
      adam_params: { learning_rate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 1 },
    });

    const sampler = await b.saveWeightsForSampler();
    expect(server.seen('/api/v1/save_weights_for_sampler')[0]!.json).toMatchObject({ seq_id: 3, sampling_session_seq_id: 0 });
    const seqs = await sampler.sample([1, 2, 3], { maxTokens: 5, numSamples: 2, stop: [2], seed: 7 });
    expect(seqs).toEqual([
      { tokens: [7, 8, 2], logprobs: [-0.1, -0.2, -0.3], stopReason: 'stop' },
      { tokens: [7, 8, 2], logprobs: [-0.1, -0.2, -0.3], stopReason: 'stop' },
    ]);
    const as = server.seen('/api/v1/asample')[0]!.json!;
    expect(as).toMatchObject({ num_samples: 2, sampling_session_id: 'samp-0', seq_id: 0, type: 'sample' });
    expect(as['sampling_params']).toEqual({ max_tokens: 5, temperature: 1, top_p: 1, top_k: -1, seed: 7, stop: [2] });
    expect(await sampler.computeLogprobs([5, 6, 7])).toEqual([null, -2, -3]);
    expect(server.seen('/api/v1/asample')[1]!.json).toMatchObject({ seq_id: 1, prompt_logprobs: true });

    expect(await b.computeLogprobs([4, 5, 6])).toEqual([null, -0.5, -0.5]);
    expect(server.seen('/api/v1/forward')[0]!.json).toMatchObject({ seq_id: 4 });

    expect(await b.capabilities()).toEqual({ models: [{ name: 'fake/model', maxContextLength: 512 }, { name: 'old/model' }] });
    expect(server.seen('/api/v1/get_server_capabilities')[0]!.method).toBe('GET');
    const info = await b.info();
    expect(info.raw['lora_rank']).toBe(32);
    expect(server.seen('/api/v1/get_info')[0]!.json).toEqual({ model_id: 'model-0', type: 'get_info' });

    // Every POST carries the key and a fresh idempotency key.
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts.every((r) => r.headers['x-api-key'] === 'tml-test')).toBe(true);
    const keys = posts.map((r) => r.headers['x-idempotency-key']);
    expect(keys.every((k) => typeof k === 'string' && k.length > 10)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('saveState writes a pointer file; loadState loads it into a fresh model as its first request', async () => {
    server = await FakeTinker.start();
    const b = make();
    const dir = await mkdtemp(join(tmpdir(), 'tinker-ckpt-'));
    try {
      await b.forwardBackward([datum(3)], { kind: 'cross_entropy' });
      await b.saveState(join(dir, 'step-1'));
      const pointer = JSON.parse(await readFile(join(dir, 'step-1', 'tinker-checkpoint.json'), 'utf8')) as { tinker_path: string };
      expect(pointer.tinker_path).toMatch(/^tinker:\/\/model-0\/weights\/.*step-1$/);
      expect(b.lastCheckpoint).toBe(pointer.tinker_path);
      await b.loadState(join(dir, 'step-1'));
      // model-0 had taken seq 1 and 2, so a new model (model_seq_id 1) is created and loaded with seq_id 1.
      const load = server.seen('/api/v1/load_weights')[0]!.json!;
      expect(load).toMatchObject({ model_id: 'model-1', seq_id: 1, path: pointer.tinker_path, optimizer: true });
      await b.forwardBackward([datum(3)], { kind: 'cross_entropy' });
      expect(server.seqs.get('model-1')).toEqual([1, 2]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loadState of a tinker:// path on a fresh backend loads into the first model; a folder without a pointer is a CheckpointError', async () => {
    server = await FakeTinker.start();
    const b = make();
    await expect(b.loadState(tmpdir())).rejects.toThrow(CheckpointError);
    await b.loadState('tinker://run-9/weights/final', { optimizer: false });
    expect(server.seen('/api/v1/load_weights')[0]!.json).toMatchObject({
      model_id: 'model-0',
      seq_id: 1,
      path: 'tinker://run-9/weights/final',
      optimizer: false,
    });
    expect(server.seen('/api/v1/create_model')).toHaveLength(1);
  });

  it('computes the same loss from the returned logprobs when the server reports no loss:sum', async () => {
    const d = [datum(4, 1.5), datum(2, -0.5)];
    const loss = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.1, aggregation: 'sequence-mean' } as const;
    const expected = referenceLoss(
      d,
      d.map((x) => x.modelInput.map(() => -0.5)),
      loss,
    ).loss;
    server = await FakeTinker.start();
    const withMetric = await make().forwardBackward(d, loss, { weight: 0.25 });
    expect(withMetric.metrics['loss']).toBeCloseTo(expected, 6);
    await backend!.close();
    await server.close();
    server = await FakeTinker.start({
      hook: (r, s) => {
        const f = r.path === '/api/v1/retrieve_future' ? s.futures.get(String(r.json!['request_id'])) : undefined;
        if (f?.op !== 'forward_backward') return undefined;
        const res = s.result(f) as Record<string, unknown>;
        return { json: { ...res, metrics: {} } };
      },
    });
    const without = await make().forwardBackward(d, loss, { weight: 0.25 });
    expect(without.metrics['loss']).toBeCloseTo(expected, 6);
    expect(without.metrics['clip_frac']).toBe(withMetric.metrics['clip_frac']);
  });

  it('splits 1,025 datums into chunks of at most 1,024, each its own seq_id, and joins the results in order', async () => {
    server = await FakeTinker.start();
    const b = make();
    const many = Array.from({ length: 1025 }, (_, i) => datum(2 + (i % 3)));
    const fb = await b.forwardBackward(many, { kind: 'importance_sampling' });
    const sent = server
      .seen('/api/v1/forward_backward')
      .map((r) => [r.json!['seq_id'], (r.json!['forward_backward_input'] as { data: unknown[] }).data.length]);
    expect(sent).toEqual([
      [1, 1024],
      [2, 1],
    ]);
    expect(fb.logprobs.map((l) => l.length)).toEqual(many.map((d) => d.modelInput.length));
    expect(fb.metrics['tokens']).toBe(many.reduce((a, d) => a + d.mask.reduce((x, y) => x + y, 0), 0));
  });

  it('refuses tempered sampling unless allowed, before any request', async () => {
    server = await FakeTinker.start();
    const b = make();
    const sampler = await b.saveWeightsForSampler();
    const before = server.requests.length;
    await expect(sampler.sample([1], { maxTokens: 3, temperature: 0.7 })).rejects.toThrow(ConfigError);
    await expect(sampler.sample([1], { maxTokens: 3, topP: 0.9 })).rejects.toThrow(/topP/);
    await expect(sampler.sample([1], { maxTokens: 3, topK: 20 })).rejects.toThrow(/topK/);
    expect(server.requests.length).toBe(before);
    await sampler.sample([1], { maxTokens: 3, temperature: 0 }); // greedy is allowed
    // The learner side: datums sampled at T ≠ 1 are refused before any request.
    expect(b.samplingSupport).toEqual({ temperature: false, truncation: 'unsupported' });
    const fbBefore = server.seen('/api/v1/forward_backward').length;
    await expect(b.forwardBackward([datum(3)], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2 }, { sampling: { temperature: 0.7 } } as never)).rejects.toThrow(
      /sampling\.temperature/,
    );
    await expect(b.forwardBackward([datum(3)], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2 }, { sampling: { topP: 0.9 } } as never)).rejects.toThrow(
      /sampling\.topP/,
    );
    await b.forwardBackward([datum(3)], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2 }, { sampling: { temperature: 1 } } as never);
    expect(server.seen('/api/v1/forward_backward').length).toBe(fbBefore + 1);
    await backend!.close();
    const evalBackend = make({ allowTemperedSampling: true });
    const s2 = await evalBackend.saveWeightsForSampler();
    await s2.sample([1], { maxTokens: 3, temperature: 0.6, topK: 20 });
    expect(server.seen('/api/v1/asample').at(-1)!.json!['sampling_params']).toMatchObject({ temperature: 0.6, top_k: 20 });
  });

  it('refuses loss options without a protocol equivalent before any request', async () => {
    server = await FakeTinker.start();
    const b = make();
    const loss = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, dualClip: 3 } as never;
    await expect(b.forwardBackward([datum(3)], loss)).rejects.toThrow(/loss\.dualClip/);
    expect(server.requests.length).toBe(0);
  });

  it('loads the renderer of a model folder', async () => {
    server = await FakeTinker.start();
    const r = await make().renderer();
    expect(r.vocabSize).toBeGreaterThan(1000);
    expect(r.stopTokens.length).toBeGreaterThan(0);
  });
});

describe('parseSampleJson', () => {
  it('refuses sampled sequences without logprobs and maps other stop reasons to stop', async () => {
    const { parseSampleJson } = await import('../../../src/backend/tinker/json-wire.js');
    expect(() => parseSampleJson('sample', { sequences: [{ tokens: [1], logprobs: null, stop_reason: 'stop' }] })).toThrow(/no logprobs/);
    expect(parseSampleJson('sample', { sequences: [{ tokens: [1], logprobs: [-1], stop_reason: 'abort' }] }).sequences[0]!.stopReason).toBe('stop');
    expect(() => parseSampleJson('sample', { sequences: [{ tokens: [1, 2], logprobs: [-1], stop_reason: 'length' }] })).toThrow(/1 logprobs for 2 tokens/);
  });
});
