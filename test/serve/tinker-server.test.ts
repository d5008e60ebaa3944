import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { localBackend } from '../../src/backend/index.js';
import { LOCAL_VOCAB, TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

const ANON = { principal: 'anonymous' };
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };

describe('agentrl serve: the Tinker HTTP API over the embedded engine', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  it('answers healthz and lists the one model it can create, with its context', async () => {
    expect((await call(base, 'healthz')).body).toEqual({ status: 'ok' });
    const caps = await call(base, 'get_server_capabilities');
    expect(caps.body.supported_models).toEqual([{ model_name: 'agentrl/local', max_context_length: MODEL.contextTokens }]);
  });

  it('forward_backward + optim_step give the same logprobs and update as the in-process backend', async () => {
    const { modelId } = await newModel(base);
    const local = localBackend(MODEL);
    try {
      const rnd = lcg(3);
      const datums = [randomDatum(rnd, 20, 5), randomDatum(rnd, 33, 8)];
      const fb = await submit(base, 'forward_backward', {
        model_id: modelId,
        seq_id: 1,
        forward_backward_input: {
          data: datums.map((d) => wireDatum(d, 'ppo')),
          loss_fn: 'ppo',
          loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
        },
      });
      const ref = await local.forwardBackward(datums, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-sum' });
      expect(fb.loss_fn_outputs).toHaveLength(2);
      fb.loss_fn_outputs.forEach((o: any, i: number) => {
        expect(o.logprobs.shape).toEqual([datums[i]!.modelInput.length]);
        o.logprobs.data.forEach((x: number, t: number) => {
          expect(x).toBeCloseTo(ref.logprobs[i]![t]!, 5);
        });
      });
      expect(fb.metrics['loss:sum']).toBeCloseTo(ref.metrics['loss']!, 5);
      const adam = { learning_rate: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0, grad_clip_norm: 1 };
      const os = await submit(base, 'optim_step', { model_id: modelId, seq_id: 2, adam_params: adam });
      const refStep = await local.optimStep({ learningRate: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClipNorm: 1 });
      expect(os.metrics.grad_norm).toBeCloseTo(refStep.metrics['grad_norm']!, 5);
      // After the update: same logprobs (forward, no gradient).
      const fw = await submit(base, 'forward', {
        model_id: modelId,
        seq_id: 3,
        forward_input: { data: [wireDatum(datums[0]!, 'cross_entropy')], loss_fn: 'cross_entropy' },
      });
      const after = await local.computeLogprobs([...datums[0]!.modelInput, datums[0]!.targetTokens.at(-1)!]);
      fw.loss_fn_outputs[0].logprobs.data.forEach((x: number, t: number) => {
        expect(x).toBeCloseTo(after[t + 1]!, 5);
      });
      // cross_entropy: −Σ lp · weights, with weights = the datum's mask.
      const ce = -after.slice(1).reduce((a: number, lp, t) => a + lp! * datums[0]!.mask[t]!, 0);
      expect(fw.metrics['loss:sum']).toBeCloseTo(ce, 3);
    } finally {
      await local.close();
    }
  });

  it("runs a model's requests in seq_id order whatever order they arrive in", async () => {
    // Hazard: an optim_step submitted ahead of its forward_backward running first (on no gradient).
    const { modelId } = await newModel(base);
    const d = randomDatum(lcg(5), 16, 4);
    const opt = await call(base, 'optim_step', { model_id: modelId, seq_id: 2, adam_params: { learning_rate: 1e-3 } });
    const fb = await call(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(d, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    expect((await result(base, fb.body.request_id)).loss_fn_outputs).toHaveLength(1);
    expect((await result(base, opt.body.request_id)).metrics.grad_norm).toBeGreaterThan(0);
  });

  it('answers try_again while a request waits, the same id for an identical retry, and 409 for a reused seq_id', async () => {
    const { modelId } = await newModel(base);
    const body = { model_id: modelId, seq_id: 2, adam_params: { learning_rate: 1e-3 } };
    const first = await call(base, 'optim_step', body);
    // seq_id 1 never came, so seq 2 waits: the long poll ends with try_again.
    expect((await call(base, 'retrieve_future', { request_id: first.body.request_id })).body).toMatchObject({ type: 'try_again' });
    const again = await call(base, 'optim_step', body);
    expect(again.body.request_id).toBe(first.body.request_id);
    const other = await call(base, 'optim_step', { ...body, adam_params: { learning_rate: 5e-3 } });
    expect(other.status).toBe(409);
    expect(other.body.category).toBe('user');
    const d = randomDatum(lcg(6), 8, 2);
    await submit(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(d, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    expect((await result(base, first.body.request_id)).metrics.grad_norm).toBeGreaterThan(0);
  });

  it('reports bad input as {error, category: "user"} and stays up', async () => {
    const { modelId } = await newModel(base);
    const good = randomDatum(lcg(7), 10, 2);
    const oov = { ...good, targetTokens: good.targetTokens.map(() => LOCAL_VOCAB + 3) };
    const r1 = await submit(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(oov, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    expect(r1).toMatchObject({ category: 'user' });
    expect(r1.error).toMatch(/outside the vocabulary/);
    const ragged = { ...good, advantages: good.advantages.slice(1) };
    const r2 = await submit(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 2,
      forward_backward_input: { data: [wireDatum(ragged, 'ppo')], loss_fn: 'ppo' },
    });
    expect(r2).toMatchObject({ category: 'user' });
    const r3 = await submit(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 3,
      forward_backward_input: { data: [wireDatum(good, 'dro')], loss_fn: 'dro' },
    });
    expect(r3).toMatchObject({ category: 'user' });
    const unknown = await call(base, 'forward_backward', { model_id: 'model_nope', seq_id: 1, forward_backward_input: { data: [], loss_fn: 'cross_entropy' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.category).toBe('user');
    const malformed = await call(base, 'optim_step', { model_id: modelId, adam_params: { learning_rate: 'fast' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.category).toBe('user');
    // The model still trains after the rejected requests.
    const ok = await submit(base, 'forward_backward', {
      model_id: modelId,
      seq_id: 4,
      forward_backward_input: { data: [wireDatum(good, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    expect(ok.metrics['loss:sum']).toBeGreaterThan(0);
    expect((await call(base, 'healthz')).status).toBe(200);
  });

  it('samples reproducibly with a seed, from an ephemeral sampler and from a named one', async () => {
    const { sessionId, modelId } = await newModel(base);
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 1, sampling_session_seq_id: 0 });
    const sample = (sid: string) =>
      submit(base, 'asample', {
        sampling_session_id: sid,
        num_samples: 2,
        prompt: { chunks: [{ tokens: [5, 6, 7], type: 'encoded_text' }] },
        sampling_params: { max_tokens: 6, seed: 11, temperature: 1 },
        prompt_logprobs: true,
      });
    const a = await sample(eph.sampling_session_id);
    const b = await sample(eph.sampling_session_id);
    expect(a.sequences).toHaveLength(2);
    expect(a.sequences[0].tokens).toHaveLength(6);
    expect(a.sequences[0].logprobs).toHaveLength(6);
    expect(a.sequences[0].stop_reason).toBe('length');
    expect(b.sequences).toEqual(a.sequences);
    expect(a.prompt_logprobs).toHaveLength(3);
    expect(a.prompt_logprobs[0]).toBeNull();
    const named = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 2, path: 'snap' });
    expect(named.path).toBe(`tinker://${modelId}/sampler_weights/snap`);
    const sess = await call(base, 'create_sampling_session', { session_id: sessionId, sampling_session_seq_id: 1, model_path: named.path });
    expect((await sample(sess.body.sampling_session_id)).sequences).toEqual(a.sequences);
    const bad = await submit(base, 'asample', {
      sampling_session_id: eph.sampling_session_id,
      prompt: { chunks: [{ tokens: [LOCAL_VOCAB], type: 'encoded_text' }] },
      sampling_params: { max_tokens: 2 },
    });
    expect(bad).toMatchObject({ category: 'user' });
  });

  it('save_weights / load_weights round-trip weights and optimizer state between models', async () => {
    const a = await newModel(base);
    const b = await newModel(base);
    const d = randomDatum(lcg(9), 12, 3);
    const fb = (m: string, seq: number) =>
      submit(base, 'forward_backward', {
        model_id: m,
        seq_id: seq,
        forward_backward_input: { data: [wireDatum(d, 'cross_entropy')], loss_fn: 'cross_entropy' },
      });
    await fb(a.modelId, 1);
    await submit(base, 'optim_step', { model_id: a.modelId, seq_id: 2, adam_params: { learning_rate: 1e-2 } });
    const saved = await submit(base, 'save_weights', { model_id: a.modelId, seq_id: 3, path: 'ckpt-1' });
    expect(saved.path).toBe(`tinker://${a.modelId}/weights/ckpt-1`);
    const before = await fb(b.modelId, 1);
    const loaded = await submit(base, 'load_weights', { model_id: b.modelId, seq_id: 2, path: saved.path, optimizer: true });
    expect(loaded.type).toBe('load_weights');
    const ra = await fb(a.modelId, 4);
    const rb = await fb(b.modelId, 3);
    expect(rb.loss_fn_outputs[0].logprobs.data).toEqual(ra.loss_fn_outputs[0].logprobs.data);
    expect(rb.loss_fn_outputs[0].logprobs.data).not.toEqual(before.loss_fn_outputs[0].logprobs.data);
    const missing = await submit(base, 'load_weights', { model_id: b.modelId, seq_id: 4, path: `tinker://${a.modelId}/weights/nope` });
    expect(missing).toMatchObject({ category: 'user' });
    // Hazard: a checkpoint name used as a directory escaping the state directory.
    for (const path of ['..', '../../etc', 'a/b']) {
      const r = await call(base, 'save_weights', { model_id: a.modelId, seq_id: 9, path });
      expect(r.status, path).toBe(400);
    }
    // A malformed path is refused at once (400), before it is queued.
    const traversal = await call(base, 'load_weights', { model_id: b.modelId, seq_id: 5, path: `tinker://${a.modelId}/weights/..` });
    expect(traversal.status).toBe(400);
    expect(traversal.body).toMatchObject({ category: 'user' });
  });

  it('reports lora_config in get_info and refuses unknown sessions and base models', async () => {
    const { modelId } = await newModel(base);
    const info = await call(base, 'get_info', { model_id: modelId, type: 'get_info' });
    expect(info.body).toMatchObject({ model_id: modelId, is_lora: true, lora_rank: 8, model_data: { model_name: 'agentrl/local' } });
    expect((await call(base, 'create_model', { session_id: 'nope', lora_config: { rank: 1 } })).status).toBe(404);
    const s = await call(base, 'create_session', {});
    expect((await call(base, 'create_model', { session_id: s.body.session_id, base_model: 'Qwen/Qwen3-8B' })).status).toBe(400);
    expect((await call(base, 'session_heartbeat', { session_id: s.body.session_id })).body).toEqual({ type: 'session_heartbeat' });
  });

  it('samples one model while another model trains', async () => {
    // Hazard: one global queue, so a long training backlog holds every sampler behind it.
    const a = await newModel(base);
    const b = await newModel(base);
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: b.modelId, seq_id: 1 });
    // Model a's queue is blocked (seq 1 missing); b's sampler must not wait for it.
    const blocked = await call(base, 'optim_step', { model_id: a.modelId, seq_id: 2, adam_params: { learning_rate: 1e-3 } });
    const s = await submit(base, 'asample', {
      sampling_session_id: eph.sampling_session_id,
      prompt: { chunks: [{ tokens: [1, 2], type: 'encoded_text' }] },
      sampling_params: { max_tokens: 2, seed: 1 },
    });
    expect(s.sequences).toHaveLength(1);
    expect((await call(base, 'retrieve_future', { request_id: blocked.body.request_id })).body.type).toBe('try_again');
  });
});

describe('agentrl serve options', () => {
  it('requires the API key when one is set', async () => {
    const serve = createServeApp({ port: 0, model: MODEL, apiKey: 'tml-secret' });
    const base = await serve.listen();
    try {
      expect((await call(base, 'healthz')).status).toBe(401);
      expect((await call(base, 'healthz', undefined, { 'x-api-key': 'tml-secret' })).status).toBe(200);
    } finally {
      await serve.close();
    }
  });

  it('gives mounted surfaces the samplers and renderer by reference', async () => {
    const serve = createServeApp({ port: 0, model: MODEL });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 1 });
      const named = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 2, path: 'v1' });
      const params = { maxTokens: 4, seed: 3 };
      const fromId = await (await serve.service.resolveSampler(eph.sampling_session_id, ANON)).sample([1, 2, 3], params);
      expect(await (await serve.service.resolveSampler(named.path, ANON)).sample([1, 2, 3], params)).toEqual(fromId);
      expect(await (await serve.service.resolveSampler('agentrl/local', ANON)).sample([1, 2, 3], params)).toEqual(fromId);
      await expect(serve.service.resolveSampler('nope', ANON)).rejects.toMatchObject({ status: 404 });
      const r = await serve.service.renderer();
      expect(r.decode(r.encode('hello world'))).toBe('hello world');
    } finally {
      await serve.close();
    }
  });

  it('mounts extra plugins on the same server', async () => {
    const serve = createServeApp({
      port: 0,
      model: MODEL,
      plugins: [(app, service) => void app.get('/v1/models', async () => ({ data: [{ id: service.modelName }] }))],
    });
    const base = await serve.listen();
    try {
      const { request } = await import('undici');
      const r = await request(`${base}/v1/models`);
      expect(await r.body.json()).toEqual({ data: [{ id: 'agentrl/local' }] });
    } finally {
      await serve.close();
    }
  });

  it('refuses a missing checkpoint and a public host without a key before listening', () => {
    expect(() => createServeApp({ checkpoint: 'test/serve/no-such-dir' })).toThrow(/checkpoint/);
    expect(() => createServeApp({ host: '0.0.0.0', model: MODEL })).toThrow(/apiKey/);
  });
});

describe('agentrl serve sessions', () => {
  it('drops a session that stopped sending heartbeats, with its models', async () => {
    const serve = createServeApp({ port: 0, model: MODEL });
    const base = await serve.listen();
    try {
      const { sessionId, modelId } = await newModel(base);
      expect(serve.service.modelCount).toBe(1);
      await serve.service.expireSessions(Date.now() - 60_000); // heartbeats are recent: kept
      expect(serve.service.modelCount).toBe(1);
      await serve.service.expireSessions(Date.now() + 1);
      expect(serve.service.modelCount).toBe(0);
      expect((await call(base, 'session_heartbeat', { session_id: sessionId })).status).toBe(404);
      expect((await call(base, 'get_info', { model_id: modelId })).status).toBe(404);
    } finally {
      await serve.close();
    }
  });
});

describe('agentrl serve sessions while the engine blocks the thread', () => {
  it('does not expire a session for heartbeats it could not read while busy', async () => {
    // Hazard: a long forward_backward blocks the event loop past the session timeout; the sweep that runs
    // first after it must not drop the session whose heartbeats are still waiting in the socket.
    const { TinkerService } = await import('../../apps/serve/tinker/service.js');
    const service = new TinkerService({ engine: MODEL, sessionTimeoutMs: 2000 });
    try {
      const s = service.createSession({}, ANON);
      const { request_id } = service.createModel({ session_id: s.session_id }, ANON);
      await service.retrieve({ request_id }, ANON);
      expect(service.modelCount).toBe(1);
      const t0 = Date.now();
      while (Date.now() - t0 < 3000) {
        // busy: the thread is blocked, as during an engine call
      }
      await new Promise((r) => setTimeout(r, 0)); // the overdue sweep runs first
      expect(service.modelCount).toBe(1);
    } finally {
      await service.close();
    }
  });
});
