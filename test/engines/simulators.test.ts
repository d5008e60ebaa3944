/**
 * The simulators themselves, through a plain Tinker client with no engine adaptation (JSON bodies, the wire as the
 * SDK sends it): each shows its engine's raw behaviour, so none can be a passthrough of agentrl serve. Expected
 * figures come from the embedded engine in process, fed what the engine's source says it computes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { localBackend } from '../../src/backend/index.js';
import type { Datum } from '../../src/types/datum.js';
import { TINY, lcg, randomDatum } from '../backend/helpers.js';
import { wireDatum } from '../serve/raw-client.js';
import { startEngine, type EngineSimulator, type SimEngine } from './simulators/index.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const TOL = 1e-5;
const open: EngineSimulator[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

async function sim(engine: SimEngine): Promise<EngineSimulator> {
  const s = await startEngine(engine, { model: MODEL });
  open.push(s);
  return s;
}

async function call(base: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await request(`${base}/api/v1/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': contentType },
    reset: true,
    ...(body === undefined ? {} : { body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body: parsed };
}

/** Polls until the future is not held: the final status and body (408 and try_again are polled again). */
async function poll(base: string, id: string): Promise<{ status: number; body: any }> {
  for (;;) {
    const r = await call(base, 'retrieve_future', { request_id: id });
    if (r.status === 408 || r.body?.type === 'try_again') continue;
    return r;
  }
}

async function submit(base: string, path: string, body: unknown): Promise<any> {
  const r = await call(base, path, body);
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  const f = await poll(base, r.body.request_id);
  expect(f.status, `${path} result: ${JSON.stringify(f.body)}`).toBe(200);
  return f.body;
}

async function newModel(base: string): Promise<{ session: string; model: string }> {
  const s = await call(base, 'create_session', { tags: [] });
  const m = await submit(base, 'create_model', { session_id: s.body.session_id, base_model: 'agentrl/local', lora_config: { rank: 8 } });
  return { session: s.body.session_id, model: m.model_id };
}

const rnd = lcg(11);
/** Two RL datums of very different completion lengths (8 and 40 sampled tokens after a 20-token prompt). */
const batch = [randomDatum(rnd, 28, 20), randomDatum(rnd, 60, 20)];
const ADAM = { learning_rate: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
const probe = batch[1]!.modelInput;

/** Gradient norm and post-step logprobs of one step of the embedded engine on `datums` (token-sum). */
async function reference(
  datums: Datum[],
  loss: 'cross_entropy' | 'importance_sampling',
  adam = ADAM,
): Promise<{ gradNorm: number; logprobs: (number | null)[] }> {
  const b = localBackend(MODEL);
  try {
    await b.forwardBackward(datums, { kind: loss, aggregation: 'token-sum' } as never);
    const r = await b.optimStep({
      learningRate: adam.learning_rate,
      beta1: adam.beta1,
      beta2: adam.beta2,
      eps: adam.eps,
      weightDecay: adam.weight_decay,
      gradClipNorm: adam.grad_clip_norm,
    });
    return { gradNorm: r.metrics['grad_norm']!, logprobs: await b.computeLogprobs(probe) };
  } finally {
    await b.close();
  }
}

async function innerLogprobs(s: EngineSimulator, modelId: string): Promise<(number | null)[]> {
  const r = await s.inner.saveWeightsForSampler({ model_id: modelId, seq_id: null }, s.inner.callerOf({}));
  for (;;) {
    const f = await s.inner.retrieve({ request_id: r.request_id }, s.inner.callerOf({}));
    if (f.state === 'done') return (await s.inner.resolveSampler(String(f.body['sampling_session_id']), s.inner.callerOf({}))).computeLogprobs(probe);
  }
}

const expectClose = (a: readonly (number | null)[], b: readonly (number | null)[]) => {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => {
    if (x === null) expect(b[i]).toBeNull();
    else expect(Math.abs(x - b[i]!)).toBeLessThanOrEqual(TOL * Math.max(1, Math.abs(b[i]!)));
  });
};

describe('skyrl-jax simulator: raw behaviour', () => {
  it('normalises each datum by Σ weights (ones over the whole datum when absent) and averages over the datums of the step', async () => {
    const s = await sim('skyrl-jax');
    const { model } = await newModel(s.url);
    // Importance sampling without weights, split over two forward_backwards (both count in the mean).
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(batch[0]!, 'is')], loss_fn: 'importance_sampling' },
    });
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 2,
      forward_backward_input: { data: [wireDatum(batch[1]!, 'is')], loss_fn: 'importance_sampling' },
    });
    const o = await submit(s.url, 'optim_step', { model_id: model, seq_id: 3, adam_params: { ...ADAM, grad_clip_norm: 5 } });
    expect(Object.keys(o.metrics).sort()).toEqual(['skyrl.ai/grad_norm', 'skyrl.ai/learning_rate']);
    // Expected: advantages scaled by 1 / (T_i · 2), T_i the whole datum length; no clipping (grad_clip_norm ignored).
    const scaled = batch.map((d) => ({ ...d, advantages: d.advantages.map((a) => a / (d.modelInput.length * 2)) }));
    const ref = await reference(scaled, 'importance_sampling');
    const plain = await reference(batch, 'importance_sampling');
    expect(Math.abs(o.metrics['skyrl.ai/grad_norm'] - ref.gradNorm)).toBeLessThanOrEqual(TOL * ref.gradNorm);
    expect(Math.abs(s.record.gradNorms[0]! - ref.gradNorm)).toBeLessThanOrEqual(TOL * ref.gradNorm);
    expect(ref.gradNorm).toBeLessThan(plain.gradNorm / 20);
    expectClose(await innerLogprobs(s, model), ref.logprobs);
    expect(s.record.adam[0]).toMatchObject({ grad_clip_norm: 0, beta2: 0.95 });
  });

  it('counts a zero-weight forward_backward in the per-step mean', async () => {
    const s = await sim('skyrl-jax');
    const { model } = await newModel(s.url);
    const zero = { ...batch[0]!, weights: batch[0]!.mask.map(() => 0) };
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: { data: batch.map((d) => wireDatum({ ...d, weights: d.mask }, 'cross_entropy')), loss_fn: 'cross_entropy' },
    });
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 2,
      forward_backward_input: { data: [wireDatum(zero, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    await submit(s.url, 'optim_step', { model_id: model, seq_id: 3, adam_params: ADAM });
    // Three datums in the step: each completion's weights divided by its completion length, then by 3 (not 2).
    const ref = await reference(
      batch.map((d) => {
        const n = d.mask.reduce((a, b) => a + b, 0);
        return { ...d, weights: d.mask.map((m) => m / (n * 3)) };
      }),
      'cross_entropy',
    );
    expect(Math.abs(s.record.gradNorms[0]! - ref.gradNorm)).toBeLessThanOrEqual(TOL * ref.gradNorm);
  });

  it('divides a datum whose weights sum below zero by 1e-9 (signed cross-entropy weights explode)', async () => {
    const s = await sim('skyrl-jax');
    const { model } = await newModel(s.url);
    const d = { ...batch[0]!, weights: batch[0]!.mask.map((m, t) => (m ? (t % 2 ? -1e-6 : -2e-6) : 0)) };
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(d, 'cross_entropy')], loss_fn: 'cross_entropy' },
    });
    await submit(s.url, 'optim_step', { model_id: model, seq_id: 2, adam_params: ADAM });
    const ref = await reference([{ ...d, weights: d.weights.map((x) => x / 1e-9) }], 'cross_entropy');
    const plain = await reference([d], 'cross_entropy');
    expect(Math.abs(s.record.gradNorms[0]! - ref.gradNorm)).toBeLessThanOrEqual(TOL * ref.gradNorm);
    expect(ref.gradNorm / plain.gradNorm).toBeGreaterThan(1e8);
  });

  it('returns N−1 prompt logprobs and loads an older sampler checkpoint into the training slot', async () => {
    const s = await sim('skyrl-jax');
    const { session, model } = await newModel(s.url);
    const old = await submit(s.url, 'save_weights_for_sampler', { model_id: model, seq_id: 1, path: 'step0' });
    const before = await innerLogprobs(s, model);
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 2,
      forward_backward_input: { data: batch.map((d) => wireDatum(d, 'cross_entropy')), loss_fn: 'cross_entropy' },
    });
    await submit(s.url, 'optim_step', { model_id: model, seq_id: 3, adam_params: ADAM });
    const trained = await innerLogprobs(s, model);
    expect(Math.abs(trained.at(-1)! - before.at(-1)!)).toBeGreaterThan(1e-4);
    const sampled = await submit(s.url, 'asample', {
      model_path: old.path,
      num_samples: 1,
      prompt: { chunks: [{ type: 'encoded_text', tokens: probe }] },
      sampling_params: { max_tokens: 2, seed: 1 },
      prompt_logprobs: true,
    });
    expect(sampled.prompt_logprobs).toHaveLength(probe.length - 1);
    expect(sampled.prompt_logprobs[0]).not.toBeNull();
    // The training weights are the step-0 sampler's again: the step was rolled back.
    expectClose(await innerLogprobs(s, model), before);
    void session;
  });

  it('holds a poll then answers 408 {detail}; reuse of a seq_id with other content is 409 {detail}; no GET /checkpoints; asample needs max_tokens', async () => {
    const s = await sim('skyrl-jax');
    const { model } = await newModel(s.url);
    // seq_id 2 waits for the missing 1: its future stays pending.
    const held = await call(s.url, 'optim_step', { model_id: model, seq_id: 2, adam_params: ADAM });
    const t0 = Date.now();
    const r = await call(s.url, 'retrieve_future', { request_id: held.body.request_id });
    expect(r).toEqual({ status: 408, body: { detail: 'Timeout waiting for result' } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    const reuse = await call(s.url, 'optim_step', { model_id: model, seq_id: 2, adam_params: { ...ADAM, learning_rate: 0.5 } });
    expect(reuse.status).toBe(409);
    expect(Object.keys(reuse.body)).toEqual(['detail']);
    expect(await call(s.url, 'checkpoints')).toEqual({ status: 404, body: { detail: 'Not Found' } });
    const noMax = await call(s.url, 'asample', {
      base_model: 'agentrl/local',
      num_samples: 1,
      prompt: { chunks: [{ type: 'encoded_text', tokens: probe }] },
      sampling_params: { seed: 1 },
    });
    expect(noMax).toEqual({ status: 400, body: { detail: 'max_tokens is currently required' } });
  });

  it('archives sampler checkpoints only, at …/checkpoints/{checkpoint_id}/archive (one segment)', async () => {
    const s = await sim('skyrl-jax');
    const { model } = await newModel(s.url);
    await submit(s.url, 'save_weights_for_sampler', { model_id: model, seq_id: 1, path: 'ckpt' });
    await submit(s.url, 'save_weights', { model_id: model, seq_id: 2, path: 'state' });
    const get = (path: string) =>
      request(`${s.url}/api/v1/training_runs/${model}/checkpoints/${path}/archive`, { method: 'GET', reset: true }).then(async (r) => ({
        status: r.statusCode,
        location: r.headers['location'],
        body: await r.body.text(),
      }));
    const ok = await get('ckpt');
    expect(ok.status).toBe(302);
    expect(String(ok.location)).toContain('/checkpoint_archives/');
    // agentrl serve's own shape ({kind}/{name}) is not a route of SkyRL's; training states have no archive.
    expect((await get('sampler_weights/ckpt')).status).toBe(404);
    expect((await get('state')).status).toBe(404);
  });
});

describe('skyrl-fsdp / skyrl-megatron simulators: raw behaviour', () => {
  it('fsdp: cispo with clip thresholds fails in its future (400 {detail: Invalid fields}); a second model fails; only the learning rate is applied', async () => {
    const s = await sim('skyrl-fsdp');
    const { session, model } = await newModel(s.url);
    const r = await call(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(batch[0]!, 'cispo')], loss_fn: 'cispo', loss_fn_config: { clip_low_threshold: 0, clip_high_threshold: 4 } },
    });
    expect(r.status).toBe(200);
    const f = await poll(s.url, r.body.request_id);
    expect(f.status).toBe(400);
    expect(f.body.detail).toMatch(/^Invalid fields/);
    // seq_id 1 was used up by the failed request: 2 runs.
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 2,
      forward_backward_input: { data: batch.map((d) => wireDatum(d, 'is')), loss_fn: 'importance_sampling' },
    });
    const o = await submit(s.url, 'optim_step', { model_id: model, seq_id: 3, adam_params: ADAM });
    expect(s.record.adam[0]).toEqual({ learning_rate: ADAM.learning_rate, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.01, grad_clip_norm: 1 });
    const ref = await reference(batch, 'importance_sampling', {
      learning_rate: ADAM.learning_rate,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weight_decay: 0.01,
      grad_clip_norm: 1,
    });
    expect(Math.abs(o.metrics['skyrl.ai/grad_norm'] - ref.gradNorm)).toBeLessThanOrEqual(TOL * ref.gradNorm);
    expectClose(await innerLogprobs(s, model), ref.logprobs);
    const second = await call(s.url, 'create_model', { session_id: session, base_model: 'agentrl/local', lora_config: { rank: 8 } });
    const sf = await poll(s.url, second.body.request_id);
    expect(sf.status).toBe(400);
    expect(sf.body.detail).toMatch(/register_adapter is not implemented/);
  });

  it('fsdp: sampling an older sampler checkpoint samples the last synced weights; megatron holds a second model', async () => {
    const s = await sim('skyrl-fsdp');
    const { model } = await newModel(s.url);
    const old = await submit(s.url, 'save_weights_for_sampler', { model_id: model, seq_id: 1, path: 'step0' });
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 2,
      forward_backward_input: { data: batch.map((d) => wireDatum(d, 'cross_entropy')), loss_fn: 'cross_entropy' },
    });
    await submit(s.url, 'optim_step', { model_id: model, seq_id: 3, adam_params: ADAM });
    await submit(s.url, 'save_weights_for_sampler', { model_id: model, seq_id: 4, path: 'step1' });
    const trained = await innerLogprobs(s, model);
    const sampled = await submit(s.url, 'asample', {
      model_path: old.path,
      num_samples: 1,
      prompt: { chunks: [{ type: 'encoded_text', tokens: probe }] },
      sampling_params: { max_tokens: 2, seed: 1 },
      prompt_logprobs: true,
    });
    expectClose(sampled.prompt_logprobs, trained);
    const m = await sim('skyrl-megatron');
    const a = await newModel(m.url);
    const b = await submit(m.url, 'create_model', { session_id: a.session, base_model: 'agentrl/local', lora_config: { rank: 8 } });
    expect(b.model_id).toEqual(expect.any(String));
  });
});

describe('tuft and open-rl simulators: raw behaviour', () => {
  it('tuft: JSON forward_backward is 415 {detail}, /forward is 404, a failed future is 422 {detail: Future failed: …} and leaves its seq_id to be reused', async () => {
    const s = await sim('tuft');
    const { model } = await newModel(s.url);
    const fb = await call(s.url, 'forward_backward', { model_id: model, seq_id: 1, forward_backward_input: { data: [], loss_fn: 'cross_entropy' } });
    expect(fb.status).toBe(415);
    expect(fb.body.detail).toMatch(/expected application\/x-protobuf/);
    expect((await call(s.url, 'forward', { model_id: model })).status).toBe(404);
    const bad = await call(s.url, 'load_weights', { model_id: model, seq_id: 1, path: `tinker://${model}/weights/missing` });
    const f = await poll(s.url, bad.body.request_id);
    expect(f.status).toBe(422);
    expect(f.body.detail).toMatch(/^Future failed: /);
    // The failure did not use up seq_id 1: 2 conflicts, 1 again runs.
    const ahead = await call(s.url, 'optim_step', { model_id: model, seq_id: 2, adam_params: ADAM });
    expect(await poll(s.url, ahead.body.request_id)).toEqual({
      status: 409,
      body: { detail: 'Failed to retrieve future: Sequence conflict: expected 1, got 2.' },
    });
    const again = await submit(s.url, 'optim_step', { model_id: model, seq_id: 1, adam_params: ADAM });
    expect(again.type).toBe('optim_step');
  });

  it('open-rl: protobuf is 422, /forward 404, cispo fails as 400 RequestFailedResponse, ppo clips at ±clip_range whatever the thresholds, seq_ids are ignored', async () => {
    const s = await sim('open-rl');
    const { model } = await newModel(s.url);
    expect((await call(s.url, 'forward_backward', new Uint8Array([1, 2, 3]), 'application/x-protobuf')).status).toBe(422);
    expect(await call(s.url, 'forward', { model_id: model })).toEqual({ status: 404, body: { detail: 'Not Found' } });
    expect((await call(s.url, 'unload_model', { model_id: model })).status).toBe(404);
    const c = await call(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: { data: [wireDatum(batch[0]!, 'cispo')], loss_fn: 'cispo' },
    });
    expect(await poll(s.url, c.body.request_id)).toEqual({ status: 400, body: { type: 'RequestFailedResponse', error_message: 'Loss cispo not supported' } });
    // seq_id 1 again, other content: no 409 (open-rl never reads seq_id). Thresholds 0.5 / 1.5 are not read: ±0.2.
    const off = batch.map((d) => ({ ...d, logprobs: d.logprobs.map((x, t) => (d.mask[t] ? x - 0.4 : 0)) }));
    await submit(s.url, 'forward_backward', {
      model_id: model,
      seq_id: 1,
      forward_backward_input: {
        data: off.map((d) => wireDatum(d, 'ppo')),
        loss_fn: 'ppo',
        loss_fn_config: { clip_low_threshold: 0.5, clip_high_threshold: 1.5 },
      },
    });
    const o = await submit(s.url, 'optim_step', { model_id: model, seq_id: 1, adam_params: ADAM });
    expect(Object.keys(o.metrics)).toEqual(['grad_norm:mean']);
    const b = localBackend(MODEL);
    try {
      await b.forwardBackward(off, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2, aggregation: 'token-sum' });
      const r = await b.optimStep({ learningRate: ADAM.learning_rate, beta1: ADAM.beta1, beta2: ADAM.beta2, eps: ADAM.eps, weightDecay: 0, gradClipNorm: 0 });
      expect(Math.abs(o.metrics['grad_norm:mean'] - r.metrics['grad_norm']!)).toBeLessThanOrEqual(TOL * r.metrics['grad_norm']!);
    } finally {
      await b.close();
    }
  });
});
