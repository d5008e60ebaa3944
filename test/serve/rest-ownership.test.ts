import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { tinkerProto } from '../../src/backend/tinker/proto.js';
import { TINY } from '../backend/helpers.js';
import { call, newModel, result, submit } from './raw-client.js';
import * as fx from './sdk-fixtures.js';

// The merge of issue 31 (protobuf bodies, REST surface, names + 409) onto issue 25's ownership seam and limits:
// every new route answers through `service.callerOf`, so another API key's objects are 404 there too.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const A = { 'x-api-key': 'key-alice' };
const B = { authorization: 'Bearer key-bob' };
const T = tinkerProto.type('ForwardBackwardRequest');
const proto = (o: unknown) => T.encode(T.fromObject(o as Record<string, unknown>)).finish();

async function rest(
  base: string,
  path: string,
  headers: Record<string, string>,
  method: 'GET' | 'POST' | 'DELETE' = 'GET',
  body?: unknown,
): Promise<{ status: number; body: any; location?: string }> {
  const res = await request(`${base}/api/v1/${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  const loc = res.headers['location'];
  return { status: res.statusCode, body: parsed, ...(typeof loc === 'string' ? { location: loc } : {}) };
}

async function protoCall(base: string, body: Uint8Array, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await request(`${base}/api/v1/forward_backward`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-protobuf' }, body });
  return { status: res.statusCode, body: await res.body.json() };
}

describe('agentrl serve: the REST surface and protobuf bodies keep ownership and limits', () => {
  let serve: ServeApp;
  let base: string;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'agentrl-rest-own-'));
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, apiKeys: ['key-alice', 'key-bob'], stateDir, serveLimits: { maxDatumsPerRequest: 2 } });
    base = await serve.listen();
  });
  afterAll(async () => {
    await serve.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it("another key's runs, checkpoints, sessions and samplers answer 404 (and are not listed); the owner's are", async () => {
    const a = await newModel(base, A);
    const saved = await submit(base, 'save_weights', { model_id: a.modelId, seq_id: 1, path: 'mine' }, A);
    const named = await submit(base, 'save_weights_for_sampler', { model_id: a.modelId, seq_id: 2, path: 'pub' }, A);
    const ss = await call(base, 'create_sampling_session', { session_id: a.sessionId, model_path: named.path }, A);
    expect(ss.status).toBe(200);
    const sid = ss.body.sampling_session_id as string;
    const b = await newModel(base, B);

    for (const path of [
      `training_runs/${a.modelId}`,
      `training_runs/${a.modelId}/checkpoints`,
      `training_runs/${a.modelId}/checkpoints/weights/mine/archive`,
      `sessions/${a.sessionId}`,
      `samplers/${sid}`,
    ]) {
      expect((await rest(base, path, B)).status, `GET ${path} by another key`).toBe(404);
    }
    expect((await rest(base, 'weights_info', B, 'POST', { tinker_path: saved.path })).status).toBe(404);
    expect((await rest(base, `training_runs/${a.modelId}/checkpoints/weights/mine`, B, 'DELETE')).status).toBe(404);
    const theirRuns = (await rest(base, 'training_runs', B)).body;
    expect(theirRuns.training_runs.map((r: any) => r.training_run_id)).toEqual([b.modelId]);
    expect((await rest(base, 'checkpoints', B)).body.checkpoints).toEqual([]);
    expect((await rest(base, 'sessions', B)).body.sessions).toEqual([b.sessionId]);

    // The owner sees all of it.
    const runs = (await rest(base, 'training_runs', A)).body;
    expect(runs.training_runs.map((r: any) => r.training_run_id)).toEqual([a.modelId]);
    const cps = (await rest(base, `training_runs/${a.modelId}/checkpoints`, A)).body.checkpoints.map((c: any) => c.tinker_path).sort();
    expect(cps).toEqual([named.path, saved.path].sort());
    expect((await rest(base, `samplers/${sid}`, A)).body).toMatchObject({ sampler_id: sid, model_path: named.path });
    expect((await rest(base, `sessions/${a.sessionId}`, A)).body).toMatchObject({ training_run_ids: [a.modelId] });
    expect((await rest(base, `sessions/${a.sessionId}`, A)).body.sampler_ids).toContain(sid);
    expect((await rest(base, 'weights_info', A, 'POST', { tinker_path: saved.path })).status).toBe(200);
    const arch = await rest(base, `training_runs/${a.modelId}/checkpoints/weights/mine/archive`, A);
    expect(arch.status).toBe(302);
    expect(arch.location).toMatch(/checkpoint_archives\//);

    // Deleting the named sampler weights also releases them: sampling by that path is then 404.
    expect((await rest(base, `training_runs/${a.modelId}/checkpoints/sampler_weights/pub`, A, 'DELETE')).status).toBe(204);
    const gone = await call(base, 'asample', { model_path: named.path, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: 2 } }, A);
    expect(gone.status).toBe(404);
  });

  it('protobuf forward_backward: another key gets 404, limits and loss_fn_config ranges apply, the owner trains', async () => {
    const a = await newModel(base, A);
    expect((await protoCall(base, proto(fx.FB_PROTO(a.modelId, 1, false)), B)).status).toBe(404);
    const big = fx.FB_PROTO(a.modelId, 1, false);
    big.data = [big.data[0]!, big.data[0]!, big.data[0]!];
    const over = await protoCall(base, proto(big), A);
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/maxDatumsPerRequest/);
    const badClip = { ...fx.FB_PROTO(a.modelId, 1, false), loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 5000 } };
    expect((await protoCall(base, proto(badClip), A)).status).toBe(400);
    // The refused bodies took no seq_id: 1 still runs.
    const ok = await protoCall(base, proto(fx.FB_PROTO(a.modelId, 1, false)), A);
    expect(ok.status).toBe(200);
    expect((await result(base, ok.body.request_id, A)).loss_fn_outputs).toHaveLength(1);
    // An identical resubmission is a duplicate (same request id), not a second run.
    const again = await protoCall(base, proto(fx.FB_PROTO(a.modelId, 1, false)), A);
    expect(again.body.request_id).toBe(ok.body.request_id);
  });

  it('overwrite:false on a saved name is 409 with the seq_id consumed; later requests still run', async () => {
    const a = await newModel(base, A);
    await submit(base, 'save_weights', { model_id: a.modelId, seq_id: 1, path: 'once' }, A);
    const dup = await call(base, 'save_weights', { model_id: a.modelId, seq_id: 2, path: 'once', overwrite: false }, A);
    expect(dup.status).toBe(409);
    // Another key cannot provoke (or learn about) the conflict: the model is unknown to it.
    expect((await call(base, 'save_weights', { model_id: a.modelId, seq_id: 3, path: 'once', overwrite: false }, B)).status).toBe(404);
    expect((await submit(base, 'optim_step', { model_id: a.modelId, seq_id: 3, adam_params: { learning_rate: 1e-3 } }, A)).type).toBe('optim_step');
  });
});
