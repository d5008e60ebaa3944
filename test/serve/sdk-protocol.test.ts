import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { tinkerProto } from '../../src/backend/tinker/proto.js';
import { TINY } from '../backend/helpers.js';
import { call, submit } from './raw-client.js';
import * as fx from './sdk-fixtures.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };

interface Raw {
  status: number;
  contentType: string;
  body: Buffer;
  headers: Record<string, unknown>;
}

async function raw(
  base: string,
  path: string,
  o: { body?: Uint8Array | string; contentType?: string; accept?: string; headers?: Record<string, string>; method?: 'GET' | 'POST' | 'DELETE' } = {},
): Promise<Raw> {
  const res = await request(`${base}${path}`, {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers: { ...(o.contentType ? { 'content-type': o.contentType } : {}), ...(o.accept ? { accept: o.accept } : {}), ...o.headers },
    ...(o.body !== undefined ? { body: o.body } : {}),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? '').split(';')[0]!, body, headers: res.headers };
}

const json = (r: Raw) => JSON.parse(r.body.toString('utf8'));

/** Polls like the SDK: `Accept` per version; returns the final answer (JSON try_again skipped). */
async function poll(base: string, requestId: string, accept: string): Promise<Raw> {
  for (;;) {
    const r = await raw(base, '/api/v1/retrieve_future', {
      body: JSON.stringify({ request_id: requestId, allow_metadata_only: false }),
      contentType: 'application/json',
      accept,
    });
    if (r.status === 200 && r.contentType === 'application/json' && json(r).type === 'try_again') continue;
    return r;
  }
}

const f32s = (b: Uint8Array) => Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
const i64s = (b: Uint8Array) => Array.from(new BigInt64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), Number);
const i32s = (b: Uint8Array) => Array.from(new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));

async function session(base: string, version: string): Promise<{ sessionId: string; modelId: string }> {
  const s = await call(base, 'create_session', fx.CREATE_SESSION(version));
  const m = await submit(base, 'create_model', fx.CREATE_MODEL(s.body.session_id));
  return { sessionId: s.body.session_id, modelId: m.model_id };
}

describe('agentrl serve answers the official SDK, version by version', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  it("client/config answers every flag the SDK reads, with its type and the server's truth; dynamic_config too", async () => {
    const r = await call(base, 'client/config', fx.CLIENT_CONFIG_REQUEST);
    expect(r.status).toBe(200);
    for (const [k, t] of Object.entries(fx.CLIENT_CONFIG_FIELDS)) expect(typeof r.body[k], k).toBe(t);
    expect(r.body).toMatchObject({
      pjwt_auth_enabled: false,
      proto_write_fwdbwd: true,
      proto_compress_fwdbwd: false,
      fwdbwd_max_chunk_len: 1024,
      use_pyqwest_transport: false,
      sample_use_retrieve_futures: false,
    });
    expect(r.body.fwdbwd_max_chunk_bytes_count).toBe((64 * 1024 * 1024) / 4);
    expect(r.body.sample_max_concurrent_requests).toBe(256);
    expect((await call(base, 'client/dynamic_config', fx.CLIENT_CONFIG_REQUEST)).body).toEqual({ refresh_interval_sec: 300, sample_cancel_enabled: false });
  });

  it('0.25: a protobuf forward_backward body gets a protobuf ForwardBackwardOutput, equal to the JSON one of ≤ 0.24', async () => {
    const a = await session(base, '0.24.1');
    const b = await session(base, '0.25.0');
    const sj = await call(base, 'forward_backward', fx.FB_JSON(a.modelId, 1));
    const jsonResult = json(await poll(base, sj.body.request_id, fx.POLL_ACCEPT.json));
    expect(jsonResult.loss_fn_output_type).toBe('ArrayRecord');
    expect(jsonResult.loss_fn_outputs).toHaveLength(1);
    expect(jsonResult.loss_fn_outputs[0].logprobs).toMatchObject({ dtype: 'float32', shape: [4] });

    const T = tinkerProto.type('ForwardBackwardRequest');
    const body = T.encode(T.fromObject(fx.FB_PROTO(b.modelId, 1, false))).finish();
    const sp = await raw(base, '/api/v1/forward_backward', { body, contentType: 'application/x-protobuf' });
    expect(sp.status).toBe(200);
    const pr = await poll(base, json(sp).request_id, fx.POLL_ACCEPT.proto);
    expect(pr.contentType).toBe('application/x-protobuf');
    const out = tinkerProto.type('ForwardBackwardOutput').toObject(tinkerProto.type('ForwardBackwardOutput').decode(pr.body), { longs: Number }) as any;
    expect(out.loss_fn_output_type).toBe('ArrayRecord');
    expect(out.loss_fn_outputs).toHaveLength(1);
    const rec = out.loss_fn_outputs[0];
    expect(rec.num_datums).toBe(1);
    expect(Object.keys(rec.fields).sort()).toEqual(['elementwise_loss', 'logprobs']);
    expect(rec.fields.logprobs.dtype).toBe(1);
    expect(i64s(rec.fields.logprobs.offsets)).toEqual([0, 16]);
    // Both models start from the same weights: the protobuf result carries the JSON one's numbers (as float32).
    const lp = f32s(rec.fields.logprobs.data);
    lp.forEach((x, i) => {
      expect(x).toBeCloseTo(jsonResult.loss_fn_outputs[0].logprobs.data[i], 5);
    });
    expect(out.metrics['loss:sum']).toBeCloseTo(jsonResult.metrics['loss:sum'], 5);
  });

  it('0.25: forward_only in the protobuf body is a forward pass (no gradient); ≤ 0.24 POST /forward agrees', async () => {
    const { modelId } = await session(base, '0.25.0');
    const T = tinkerProto.type('ForwardBackwardRequest');
    const sp = await raw(base, '/api/v1/forward_backward', {
      body: T.encode(T.fromObject(fx.FB_PROTO(modelId, 1, true))).finish(),
      contentType: 'application/x-protobuf',
    });
    const pr = await poll(base, json(sp).request_id, fx.POLL_ACCEPT.proto);
    const out = tinkerProto.type('ForwardBackwardOutput').decode(pr.body) as any;
    const viaProto = f32s(out.loss_fn_outputs[0].fields.logprobs.data);
    const fw = await call(base, 'forward', fx.FORWARD_JSON(modelId, 2));
    const viaJson = json(await poll(base, fw.body.request_id, fx.POLL_ACCEPT.json)).loss_fn_outputs[0].logprobs.data;
    viaProto.forEach((x, i) => {
      expect(x).toBeCloseTo(viaJson[i], 5);
    });
    // optim_step after forwards only: nothing accumulated, weights unchanged → same logprobs again.
    await submit(base, 'optim_step', { model_id: modelId, seq_id: 3, adam_params: { learning_rate: 0.1 }, type: 'optim_step' });
    const again = await raw(base, '/api/v1/forward_backward', {
      body: T.encode(T.fromObject(fx.FB_PROTO(modelId, 4, true))).finish(),
      contentType: 'application/x-protobuf',
    });
    const out2 = tinkerProto.type('ForwardBackwardOutput').decode((await poll(base, json(again).request_id, fx.POLL_ACCEPT.proto)).body) as any;
    expect(f32s(out2.loss_fn_outputs[0].fields.logprobs.data)).toEqual(viaProto);
  });

  it('samples: protobuf SampleResponse for 0.18.1+ Accept, JSON for ≤ 0.18.0, same tokens and logprobs', async () => {
    const { modelId } = await session(base, '0.18.0');
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 1, sampling_session_seq_id: 0, type: 'save_weights_for_sampler' });
    const sid = eph.sampling_session_id as string;
    const j = await call(base, 'asample', fx.SAMPLE(sid));
    const asJson = json(await poll(base, j.body.request_id, fx.POLL_ACCEPT.json));
    for (const accept of [fx.POLL_ACCEPT.either, fx.POLL_ACCEPT.proto]) {
      const p = await call(base, 'asample', fx.SAMPLE(sid));
      const r = await poll(base, p.body.request_id, accept);
      expect(r.contentType).toBe('application/x-protobuf');
      const msg = tinkerProto.type('SampleResponse').decode(r.body) as any;
      expect(msg.sequences).toHaveLength(2);
      msg.sequences.forEach((s: any, i: number) => {
        expect(i32s(s.tokens)).toEqual(asJson.sequences[i].tokens);
        f32s(s.logprobs).forEach((x, t) => {
          expect(x).toBeCloseTo(asJson.sequences[i].logprobs[t], 5);
        });
        expect(s.stop_reason ?? 0).toBe(asJson.sequences[i].stop_reason === 'length' ? 1 : 0);
      });
      const pl = f32s(msg.prompt_logprobs);
      expect(pl).toHaveLength(3);
      expect(Number.isNaN(pl[0])).toBe(true);
      pl.slice(1).forEach((x, t) => {
        expect(x).toBeCloseTo(asJson.prompt_logprobs[t + 1], 5);
      });
    }
  });

  it('failures stay JSON {error, category} whatever the poll accepts; other results stay JSON', async () => {
    const { modelId } = await session(base, '0.25.0');
    const T = tinkerProto.type('ForwardBackwardRequest');
    const bad = fx.FB_PROTO(modelId, 1, false);
    bad.loss_fn = 'dro';
    const s = await raw(base, '/api/v1/forward_backward', { body: T.encode(T.fromObject(bad)).finish(), contentType: 'application/x-protobuf' });
    const r = await poll(base, json(s).request_id, fx.POLL_ACCEPT.proto);
    expect(r.contentType).toBe('application/json');
    expect(json(r)).toMatchObject({ category: 'user' });
    const os = await call(base, 'optim_step', { model_id: modelId, seq_id: 2, adam_params: { learning_rate: 0 } });
    expect((await poll(base, os.body.request_id, fx.POLL_ACCEPT.proto)).contentType).toBe('application/json');
  });

  it('refuses what it does not take: encodings other than zstd (415), protobuf on other routes (415), garbage protobuf (400)', async () => {
    const { modelId } = await session(base, '0.25.0');
    const T = tinkerProto.type('ForwardBackwardRequest');
    const body = T.encode(T.fromObject(fx.FB_PROTO(modelId, 1, false))).finish();
    for (const enc of ['gzip', 'deflate', 'br']) {
      const r = await raw(base, '/api/v1/forward_backward', { body, contentType: 'application/x-protobuf', headers: { 'content-encoding': enc } });
      expect(r.status).toBe(415);
      expect(json(r).error).toMatch(/Content-Encoding/);
    }
    expect((await raw(base, '/api/v1/optim_step', { body, contentType: 'application/x-protobuf' })).status).toBe(415);
    for (const junk of [Uint8Array.from([0xff, 0xff, 0xff]), Uint8Array.from([0x0a, 0x50, 0x41])]) {
      const r = await raw(base, '/api/v1/forward_backward', { body: junk, contentType: 'application/x-protobuf' });
      expect(r.status).toBe(400);
      expect(json(r).category).toBe('user');
    }
    // The model was not blocked by the refusals: seq_id 1 still runs.
    const ok = await raw(base, '/api/v1/forward_backward', { body, contentType: 'application/x-protobuf' });
    expect((await poll(base, json(ok).request_id, fx.POLL_ACCEPT.proto)).contentType).toBe('application/x-protobuf');
  });
});

describe('agentrl serve checkpoint names and conflicts', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  it('names follow ^[A-Za-z0-9_-]+$ (400 otherwise) for both kinds of save', async () => {
    const { modelId } = await session(base, '0.25.0');
    for (const bad of ['ckpt.1', 'a/b', '..', '', 'x y', 'é', 'a'.repeat(129)]) {
      for (const op of ['save_weights', 'save_weights_for_sampler']) {
        const r = await call(base, op, { model_id: modelId, seq_id: 1, path: bad });
        if (bad === '') continue; // an empty name is "no name" for the schema; checked below
        expect(r.status, `${op} ${bad}`).toBe(400);
      }
    }
    for (const good of ['ckpt-1', 'A_b-9', '000']) {
      const r = await submit(base, 'save_weights', { model_id: modelId, seq_id: undefined, path: good });
      expect(r.path).toBe(`tinker://${modelId}/weights/${good}`);
    }
  });

  it('overwrite:false on an existing name → 409, the seq_id is consumed (later requests run); absent → overwritten', async () => {
    const { modelId } = await session(base, '0.25.0');
    const first = await submit(base, 'save_weights', { model_id: modelId, seq_id: 1, path: 'step-1', overwrite: false });
    expect(first.path).toBe(`tinker://${modelId}/weights/step-1`);
    const dup = await call(base, 'save_weights', { model_id: modelId, seq_id: 2, path: 'step-1', overwrite: false });
    expect(dup.status).toBe(409);
    // A resubmission of that very request (lost answer) gets the future, whose result names the existing checkpoint.
    const again = await call(base, 'save_weights', { model_id: modelId, seq_id: 2, path: 'step-1', overwrite: false });
    expect(again.status).toBe(200);
    const res = await submit(base, 'save_weights', { model_id: modelId, seq_id: 2, path: 'step-1', overwrite: false });
    expect(res.path).toBe(`tinker://${modelId}/weights/step-1`);
    // Sampler names too, independently of training names.
    expect((await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 3, path: 'step-1', overwrite: false })).path).toBe(
      `tinker://${modelId}/sampler_weights/step-1`,
    );
    expect((await call(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 4, path: 'step-1', overwrite: false })).status).toBe(409);
    // seq_id 5 is not held behind the refused 2 and 4.
    const os = await submit(base, 'optim_step', { model_id: modelId, seq_id: 5, adam_params: { learning_rate: 0 } });
    expect(os.type).toBe('optim_step');
    expect((await submit(base, 'save_weights', { model_id: modelId, seq_id: 6, path: 'step-1' })).path).toBe(`tinker://${modelId}/weights/step-1`);
  });
});

/** Entries of an uncompressed tar (ustar headers parsed here, independently of the library that wrote it). */
function untar(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let pos = 0; pos + 512 <= buf.length; ) {
    const h = buf.subarray(pos, pos + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(h.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    out.set(name, buf.subarray(pos + 512, pos + 512 + size));
    pos += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('agentrl serve REST surface (RestClient, create_training_client_from_state, get_base_model)', () => {
  let serve: ServeApp;
  let base: string;
  const KEY = { 'x-api-key': 'tml-rest' };
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, apiKey: 'tml-rest' });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  const get = async (path: string, headers: Record<string, string> = KEY) => {
    const r = await raw(base, `/api/v1/${path}`, { headers });
    return { status: r.status, body: r.body.length > 0 && r.contentType === 'application/json' ? json(r) : undefined, raw: r };
  };
  const post = (path: string, body: unknown) => call(base, path, body, KEY);
  const submitK = async (path: string, body: unknown) => {
    const r = await post(path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    for (;;) {
      const p = await post('retrieve_future', { request_id: r.body.request_id });
      if (p.body?.type !== 'try_again') return p.body;
    }
  };

  it('lists runs and checkpoints, answers weights_info and samplers, downloads an archive, deletes', async () => {
    const s = await post('create_session', fx.CREATE_SESSION('0.25.0'));
    const m = await submitK('create_model', { ...fx.CREATE_MODEL(s.body.session_id), user_metadata: { run: 'r1', n: 3 } });
    const id = m.model_id as string;
    const saved = await submitK('save_weights', { model_id: id, seq_id: 1, path: 'ckpt-1' });
    const named = await submitK('save_weights_for_sampler', { model_id: id, seq_id: 2, path: 'snap' });

    const wi = await post('weights_info', { tinker_path: saved.path });
    expect(wi.status).toBe(200);
    expect(wi.body).toEqual({ base_model: 'agentrl/local', is_lora: true, lora_rank: 8, train_unembed: true, train_mlp: true, train_attn: true });
    expect((await post('weights_info', { tinker_path: `tinker://${id}/weights/nope` })).status).toBe(404);
    expect((await post('weights_info', { tinker_path: 'not-a-path' })).status).toBe(400);

    const runs = await get('training_runs?limit=10&offset=0');
    expect(runs.body.cursor).toEqual({ offset: 0, limit: 10, total_count: 1 });
    const run = runs.body.training_runs[0];
    expect(run).toMatchObject({
      training_run_id: id,
      base_model: 'agentrl/local',
      is_lora: true,
      corrupted: false,
      lora_rank: 8,
      user_metadata: { run: 'r1', n: '3' },
    });
    expect(Number.isNaN(Date.parse(run.last_request_time))).toBe(false);
    expect(run.last_checkpoint).toMatchObject({ checkpoint_id: 'weights/ckpt-1', checkpoint_type: 'training', tinker_path: saved.path, public: false });
    expect(run.last_sampler_checkpoint).toMatchObject({ checkpoint_id: 'sampler_weights/snap', checkpoint_type: 'sampler', tinker_path: named.path });
    expect((await get(`training_runs/${id}`)).body.training_run_id).toBe(id);
    expect((await get('training_runs/model_nothere')).status).toBe(404);
    expect((await get('training_runs?offset=5')).body.training_runs).toEqual([]);

    const list = await get(`training_runs/${id}/checkpoints`);
    expect(list.body.checkpoints.map((c: any) => c.checkpoint_id).sort()).toEqual(['sampler_weights/snap', 'weights/ckpt-1']);
    for (const c of list.body.checkpoints) expect(c.size_bytes).toBeGreaterThan(0);
    expect((await get('checkpoints')).body.cursor.total_count).toBe(2);

    // get_base_model: a sampler made from the named weights.
    const ss = await post('create_sampling_session', {
      session_id: s.body.session_id,
      sampling_session_seq_id: 0,
      model_path: named.path,
      type: 'create_sampling_session',
    });
    expect((await get(`samplers/${ss.body.sampling_session_id}`)).body).toEqual({
      sampler_id: ss.body.sampling_session_id,
      base_model: 'agentrl/local',
      model_path: named.path,
    });
    expect((await get('samplers/sampler_nothere')).status).toBe(404);

    const sessions = await get('sessions');
    expect(sessions.body.sessions).toContain(s.body.session_id);
    expect((await get(`sessions/${s.body.session_id}`)).body).toEqual({ training_run_ids: [id], sampler_ids: [ss.body.sampling_session_id] });

    // Archive: 302 with Location and Expires; the URL works without the key; a tar of the checkpoint.
    const a = await get(`training_runs/${id}/checkpoints/weights/ckpt-1/archive`);
    expect(a.status).toBe(302);
    const loc = String(a.raw.headers['location']);
    expect(Date.parse(String(a.raw.headers['expires']))).toBeGreaterThan(Date.now());
    const dl = await raw(base, new URL(loc).pathname);
    expect(dl.status).toBe(200);
    expect(Number(dl.headers['content-length'])).toBe(dl.body.length);
    const files = untar(dl.body);
    expect([...files.keys()].sort()).toEqual(['checkpoint_complete', 'config.json', 'model.safetensors', 'optimizer.safetensors']);
    expect(JSON.parse(files.get('config.json')!.toString('utf8')).format).toBe('agentrl-local-v1');
    const sa = await get(`training_runs/${id}/checkpoints/sampler_weights/snap/archive`);
    expect([...untar((await raw(base, new URL(String(sa.raw.headers['location'])).pathname)).body).keys()].sort()).toEqual([
      'checkpoint_complete',
      'config.json',
      'model.safetensors',
    ]);
    expect((await raw(base, '/api/v1/checkpoint_archives/0123abcd')).status).toBe(404);
    expect((await get(`training_runs/${id}/checkpoints/weights/ckpt-1/archive`, {})).status).toBe(401);

    // create_training_client_from_state: weights_info, create_model, load_weights of the path.
    const m2 = await submitK('create_model', fx.CREATE_MODEL(s.body.session_id));
    const loaded = await submitK('load_weights', { model_id: m2.model_id, seq_id: 1, path: saved.path, optimizer: true, type: 'load_weights' });
    expect(loaded.path).toBe(saved.path);

    const del = await raw(base, `/api/v1/training_runs/${id}/checkpoints/weights/ckpt-1`, { method: 'DELETE', headers: KEY });
    expect(del.status).toBe(204);
    expect((await get(`training_runs/${id}/checkpoints`)).body.checkpoints.map((c: any) => c.checkpoint_id)).toEqual(['sampler_weights/snap']);
    expect((await raw(base, `/api/v1/training_runs/${id}/checkpoints/weights/ckpt-1`, { method: 'DELETE', headers: KEY })).status).toBe(404);
    expect((await raw(base, `/api/v1/training_runs/${id}/checkpoints/other/x`, { method: 'DELETE', headers: KEY })).status).toBe(404);
  });
});
