import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { openaiServePlugin } from '../../apps/serve/openai-plugin.js';
import { LOCAL_VOCAB, TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// Every limit of agentrl serve: a request past it is refused with its typed answer, decided before the engine
// allocates, and the next normal request is then answered correctly.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const C = MODEL.contextTokens;

const fbBody = (modelId: string, seq: number | undefined, datums: unknown[], lossFn = 'cross_entropy') => ({
  model_id: modelId,
  ...(seq !== undefined ? { seq_id: seq } : {}),
  forward_backward_input: { data: datums, loss_fn: lossFn },
});
const datum = (T: number, seed = 1) => wireDatum(randomDatum(lcg(seed), T, 1), 'cross_entropy');
const prompt = (tokens: number[]) => ({ chunks: [{ type: 'encoded_text', tokens }] });

async function v1(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await request(`${base}/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.statusCode, body: await r.body.json() };
}

describe('agentrl serve request limits (each refused before the engine allocates; the next normal request works)', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({
      port: 0,
      model: MODEL,
      pollTimeoutMs: 200,
      serveLimits: { maxNumSamples: 8, maxSampleTokens: 32, maxSequencesPerRequest: 12, maxDatumsPerRequest: 4, maxTokensPerRequest: 200 },
      limits: { maxBodyBytes: 256 * 1024 },
      plugins: [openaiServePlugin],
    });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  it('num_samples and max_tokens of asample', async () => {
    const { modelId } = await newModel(base);
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 1 });
    const id = eph.sampling_session_id;
    for (const n of [9, 1000, 2 ** 31 - 1, 0, -3]) {
      const r = await call(base, 'asample', { sampling_session_id: id, num_samples: n, prompt: prompt([1, 2]), sampling_params: { max_tokens: 4 } });
      expect(r.status, `num_samples ${n}`).toBe(400);
      expect(r.body).toMatchObject({ category: 'user' });
      expect(r.body.error).toMatch(/num_samples/);
    }
    for (const t of [33, 100_000, -1]) {
      const r = await call(base, 'asample', { sampling_session_id: id, num_samples: 1, prompt: prompt([1, 2]), sampling_params: { max_tokens: t } });
      expect(r.status, `max_tokens ${t}`).toBe(400);
      expect(r.body.error).toMatch(/max_tokens/);
    }
    const long = await call(base, 'asample', {
      base_model: 'agentrl/local',
      prompt: prompt(Array.from({ length: C + 5 }, (_, i) => i % LOCAL_VOCAB)),
      sampling_params: { max_tokens: 2 },
    });
    expect(long.status).toBe(400);
    const ok = await submit(base, 'asample', { sampling_session_id: id, num_samples: 8, prompt: prompt([1, 2]), sampling_params: { max_tokens: 5, seed: 1 } });
    expect(ok.sequences).toHaveLength(8);
    ok.sequences.forEach((s: any) => {
      expect(s.tokens.length).toBeLessThanOrEqual(5);
    });
  });

  it('n, max_tokens and prompts × n of /v1 completions and chat completions', async () => {
    const bad: [string, unknown, string][] = [
      ['completions', { model: 'agentrl/local', prompt: [1, 2, 3], n: 9, max_tokens: 2 }, 'n'],
      ['completions', { model: 'agentrl/local', prompt: [1, 2, 3], max_tokens: 33 }, 'max_tokens'],
      ['completions', { model: 'agentrl/local', prompt: [[1], [2], [3], [4]], n: 4, max_tokens: 2 }, 'prompt'],
      ['completions', { model: 'agentrl/local', prompt: Array.from({ length: 13 }, () => 'hi'), max_tokens: 2 }, 'prompt'],
      ['chat/completions', { model: 'agentrl/local', messages: [{ role: 'user', content: 'hi' }], n: 50, max_tokens: 2 }, 'n'],
      ['chat/completions', { model: 'agentrl/local', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 1000 }, 'max_completion_tokens'],
    ];
    for (const [path, body, param] of bad) {
      const r = await v1(base, path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const ok = await v1(base, 'completions', {
      model: 'agentrl/local',
      prompt: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      n: 4,
      max_tokens: 3,
      seed: 2,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.choices).toHaveLength(12);
    const chat = await v1(base, 'chat/completions', { model: 'agentrl/local', messages: [{ role: 'user', content: 'hi' }], n: 2, max_tokens: 3 });
    expect(chat.status).toBe(200);
    expect(chat.body.choices).toHaveLength(2);
  });

  it('datums and tokens of forward_backward and forward, and datums longer than the context', async () => {
    const { modelId } = await newModel(base);
    const cases: [string, unknown[]][] = [
      ['datums', Array.from({ length: 5 }, (_, i) => datum(4, i))],
      ['datums', Array.from({ length: 300 }, () => datum(2))],
      ['tokens', [datum(60), datum(60), datum(60, 2), datum(30)]],
      ['context', [datum(C + 1)]],
    ];
    for (const [why, data] of cases) {
      for (const op of ['forward_backward', 'forward'] as const) {
        const body = op === 'forward' ? { model_id: modelId, forward_input: { data, loss_fn: 'cross_entropy' } } : fbBody(modelId, undefined, data);
        const r = await call(base, op, body);
        expect(r.status, `${op} ${why}`).toBe(400);
        expect(r.body.category).toBe('user');
      }
    }
    expect(serve.service.stats().queued).toBe(0);
    const ok = await submit(base, 'forward_backward', fbBody(modelId, undefined, [datum(50), datum(50, 3)]));
    expect(ok.loss_fn_outputs).toHaveLength(2);
    const fw = await submit(base, 'forward', { model_id: modelId, forward_input: { data: [datum(20)], loss_fn: 'cross_entropy' } });
    expect(fw.loss_fn_outputs).toHaveLength(1);
  });

  it('request bodies over the size limit are 413, then a normal request works', async () => {
    const { modelId } = await newModel(base);
    const big = fbBody(modelId, undefined, [{ ...(datum(4) as object), pad: 'x'.repeat(300 * 1024) }]);
    const r = await call(base, 'forward_backward', big);
    expect(r.status).toBe(413);
    expect((await submit(base, 'forward_backward', fbBody(modelId, undefined, [datum(8)]))).loss_fn_outputs).toHaveLength(1);
  });

  it('Adam hyperparameters must be finite and in range (no NaN weights)', async () => {
    const { modelId } = await newModel(base);
    await submit(base, 'forward_backward', fbBody(modelId, undefined, [datum(16)]));
    const bad = [
      { learning_rate: 1e308 },
      { learning_rate: 2 },
      { learning_rate: -1e-3 },
      { learning_rate: 1e-3, beta1: 1 },
      { learning_rate: 1e-3, beta2: -0.1 },
      { learning_rate: 1e-3, eps: 0 },
      { learning_rate: 1e-3, weight_decay: 5 },
      { learning_rate: 1e-3, grad_clip_norm: -1 },
      { learning_rate: 1e-3, grad_clip_norm: 1e300 },
    ];
    for (const adam of bad) {
      const r = await call(base, 'optim_step', { model_id: modelId, adam_params: adam });
      expect(r.status, JSON.stringify(adam)).toBe(400);
      expect(r.body.category).toBe('user');
    }
    const lossCfg = await call(base, 'forward_backward', {
      model_id: modelId,
      forward_backward_input: { data: [datum(8)], loss_fn: 'ppo', loss_fn_config: { clip_low_threshold: -1 } },
    });
    expect(lossCfg.status).toBe(400);
    const step = await submit(base, 'optim_step', { model_id: modelId, adam_params: { learning_rate: 1e-2 } });
    expect(step.metrics.grad_norm).toBeGreaterThan(0);
    const fw = await submit(base, 'forward', { model_id: modelId, forward_input: { data: [datum(16)], loss_fn: 'cross_entropy' } });
    fw.loss_fn_outputs[0].logprobs.data.forEach((x: number) => {
      expect(Number.isFinite(x)).toBe(true);
    });
  });
});

describe('agentrl serve load limits', () => {
  it('models per session (400) and in total (503 with Retry-After); unloading frees the slot', async () => {
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, serveLimits: { maxModelsPerSession: 2, maxModels: 3 } });
    const base = await serve.listen();
    try {
      const s1 = (await call(base, 'create_session', {})).body.session_id;
      const m1 = await submit(base, 'create_model', { session_id: s1 });
      await submit(base, 'create_model', { session_id: s1 });
      const third = await call(base, 'create_model', { session_id: s1 });
      expect(third.status).toBe(400);
      expect(third.body.error).toMatch(/maxModelsPerSession/);
      const s2 = (await call(base, 'create_session', {})).body.session_id;
      await submit(base, 'create_model', { session_id: s2 });
      const full = await request(`${base}/api/v1/create_model`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: s2 }),
      });
      expect(full.statusCode).toBe(503);
      expect(Number(full.headers['retry-after'])).toBeGreaterThan(0);
      await full.body.dump();
      await submit(base, 'unload_model', { model_id: m1.model_id });
      const again = await submit(base, 'create_model', { session_id: s2 });
      expect(again.type).toBe('create_model');
      expect(serve.service.modelCount).toBe(3);
    } finally {
      await serve.close();
    }
  });

  it('unfinished futures per session and in total: 429 with Retry-After; held out-of-order ones do not count; unload always works', async () => {
    const { TinkerService } = await import('../../apps/serve/tinker/service.js');
    const me = { principal: 'anonymous' };
    const service = new TinkerService({ engine: MODEL, pollTimeoutMs: 100, limits: { maxQueuedPerSession: 3, maxQueued: 5 } });
    try {
      const newM = async () => {
        const s = service.createSession({}, me);
        const r = service.createModel({ session_id: s.session_id }, me);
        const w = await service.retrieve({ request_id: r.request_id }, me);
        return w.state === 'done' ? r.model_id : (await service.retrieve({ request_id: r.request_id }, me), r.model_id);
      };
      const [a, b] = [await newM(), await newM()];
      const fb = (m: string, seq?: number) => service.forwardBackward(fbBody(m, seq, [datum(8)]) as never, me);
      // Submitted in one tick: nothing has run yet, so all are unfinished.
      const first = [fb(a), fb(a), fb(a)];
      let refused: unknown;
      try {
        fb(a);
      } catch (e) {
        refused = e;
      }
      expect(refused).toMatchObject({ status: 429, retryAfterS: 1, message: expect.stringMatching(/maxQueuedPerSession 3/) });
      // Held for a missing seq_id: bounded by the out-of-order limits instead, so the gap can always be filled.
      const held = fb(b, 2);
      fb(b);
      fb(b);
      expect(() => fb(b)).toThrow(/maxQueued 5/);
      expect(service.stats().queued).toBe(5);
      for (const r of [...first, held]) expect((await service.retrieve({ request_id: r.request_id }, me)).state).not.toBe('unknown');
      // Wait until everything released has finished (the engine runs in a worker: no fixed delay is enough), so only the
      // held request is unfinished; seq 1 then fills b's gap and seq 2 runs.
      while (service.stats().queued > 1) await new Promise((r) => setTimeout(r, 20));
      const one = fb(b, 1);
      for (const r of [one, held]) {
        let w = await service.retrieve({ request_id: r.request_id }, me);
        while (w.state === 'pending') w = await service.retrieve({ request_id: r.request_id }, me);
        expect(w).toMatchObject({ state: 'done', body: { type: 'forward_backward' } });
      }
      expect(service.stats().queued).toBe(0);
      // Fill a's quota again: an unload still goes through.
      fb(a);
      fb(a);
      fb(a);
      const un = service.unloadModel({ model_id: a }, me);
      let w = await service.retrieve({ request_id: un.request_id }, me);
      while (w.state === 'pending') w = await service.retrieve({ request_id: un.request_id }, me);
      expect(w).toMatchObject({ state: 'done', body: { type: 'unload_model' } });
      expect(service.modelCount).toBe(1);
    } finally {
      await service.close();
    }
  });

  it('out-of-order seq_id bodies per model: count and bytes (429), time (the held request fails; later ones still run)', async () => {
    const serve = createServeApp({
      port: 0,
      model: MODEL,
      pollTimeoutMs: 200,
      serveLimits: { maxOutOfOrderRequests: 3, maxOutOfOrderBytes: 7_000, outOfOrderTimeoutMs: 1500 },
    });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      for (let seq = 3; seq <= 5; seq++)
        expect((await call(base, 'optim_step', { model_id: modelId, seq_id: seq, adam_params: { learning_rate: 1e-3 } })).status).toBe(200);
      const count = await call(base, 'optim_step', { model_id: modelId, seq_id: 6, adam_params: { learning_rate: 1e-3 } });
      expect(count.status).toBe(429);
      expect(count.body.error).toMatch(/missing seq_id 1/);
      expect(serve.service.stats().outOfOrder).toBe(3);
      // Fill the gap: everything runs in order, including the once-refused seq 6.
      await submit(base, 'forward_backward', fbBody(modelId, 1, [datum(8)]));
      await submit(base, 'forward_backward', fbBody(modelId, 2, [datum(8)]));
      expect((await submit(base, 'optim_step', { model_id: modelId, seq_id: 6, adam_params: { learning_rate: 1e-3 } })).type).toBe('optim_step');
      expect(serve.service.stats()).toMatchObject({ outOfOrder: 0, outOfOrderBytes: 0 });

      // Bytes: one large held body fits, the next does not.
      const big = (seq: number) =>
        fbBody(
          modelId,
          seq,
          Array.from({ length: 3 }, (_, i) => datum(120, i)),
        );
      expect((await call(base, 'forward_backward', big(9))).status).toBe(200);
      const bytes = await call(base, 'forward_backward', big(10));
      expect(bytes.status).toBe(429);
      expect(bytes.body.error).toMatch(/bytes/);

      // Time: seq 9 waits for seq 7 past the timeout and fails with a user error; seq 7, 8 and later still run.
      const timedOut = await result(base, (await call(base, 'forward_backward', big(9))).body.request_id);
      expect(timedOut).toMatchObject({ category: 'user' });
      expect(timedOut.error).toMatch(/never arrived/);
      expect(serve.service.stats().outOfOrderBytes).toBe(0);
      await submit(base, 'forward_backward', fbBody(modelId, 7, [datum(8)]));
      await submit(base, 'forward_backward', fbBody(modelId, 8, [datum(8)]));
      expect((await submit(base, 'forward_backward', fbBody(modelId, 10, [datum(8)]))).loss_fn_outputs).toHaveLength(1);
    } finally {
      await serve.close();
    }
  });

  it('retained results: past maxRetainedResults the oldest expire (410), the newest answer', async () => {
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, serveLimits: { maxRetainedResults: 3 } });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await call(base, 'forward_backward', fbBody(modelId, undefined, [datum(6, i)]));
        ids.push(r.body.request_id);
        await result(base, r.body.request_id);
      }
      expect(serve.service.stats().retainedResults).toBe(3);
      expect((await call(base, 'retrieve_future', { request_id: ids[0] })).status).toBe(410);
      expect((await call(base, 'retrieve_future', { request_id: ids[5] })).body.loss_fn_outputs).toHaveLength(1);
    } finally {
      await serve.close();
    }
  });
});

describe('agentrl serve stays responsive during a long forward', () => {
  it('answers healthz and heartbeats between the datums of a forward of many datums', async () => {
    // The attack: one forward of thousands of tiny datums held even healthz for 51 s. Now the datums are bounded
    // (maxDatumsPerRequest) and the forward yields to the HTTP layer between datums.
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    const base = await serve.listen();
    try {
      const { sessionId, modelId } = await newModel(base);
      const data = Array.from({ length: 300 }, (_, i) => datum(20, i));
      await submit(base, 'forward', { model_id: modelId, forward_input: { data: data.slice(0, 2), loss_fn: 'cross_entropy' } }); // warm the kernels
      const t0 = Date.now();
      const sub = await call(base, 'forward', { model_id: modelId, forward_input: { data, loss_fn: 'cross_entropy' } });
      let finished = false;
      const res = result(base, sub.body.request_id).then((r) => ((finished = true), r));
      const latencies: number[] = [];
      while (!finished) {
        const s = Date.now();
        expect((await call(base, 'healthz')).status).toBe(200);
        expect((await call(base, 'session_heartbeat', { session_id: sessionId })).status).toBe(200);
        latencies.push(Date.now() - s);
        await new Promise((r) => setTimeout(r, 20));
      }
      const total = Date.now() - t0;
      expect((await res).loss_fn_outputs).toHaveLength(300);
      // A blocked thread would answer the first poll only after the whole forward (total ms).
      // (The bound is relative to the forward's own length: on a loaded machine both stretch alike.)
      expect(total).toBeGreaterThan(1000);
      expect(latencies.length).toBeGreaterThan(3);
      expect(Math.max(...latencies)).toBeLessThan(total / 3);
    } finally {
      await serve.close();
    }
  });
});
