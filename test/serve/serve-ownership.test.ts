import { mkdir, mkdtemp, rm, symlink, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { openaiServePlugin } from '../../apps/serve/openai-plugin.js';
import { TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// Sessions own their models: what one API key created, another cannot see, train, sample, load or unload (404).
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const A = { 'x-api-key': 'key-alice' };
const B = { authorization: 'Bearer key-bob' };
const datum = (seed = 1) => wireDatum(randomDatum(lcg(seed), 10, 2), 'cross_entropy');
const fb = (modelId: string, seq?: number) => ({
  model_id: modelId,
  ...(seq !== undefined ? { seq_id: seq } : {}),
  forward_backward_input: { data: [datum()], loss_fn: 'cross_entropy' },
});

describe('agentrl serve: ownership between API keys', () => {
  let serve: ServeApp;
  let base: string;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'agentrl-own-'));
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, apiKeys: ['key-alice', 'key-bob'], stateDir, plugins: [openaiServePlugin] });
    base = await serve.listen();
  });
  afterAll(async () => {
    await serve.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it("another key's session, model, futures, checkpoints and samplers answer 404; the owner's still work", async () => {
    const a = await newModel(base, A);
    const fut = (await call(base, 'forward_backward', fb(a.modelId, 1), A)).body.request_id;
    await result(base, fut, A);
    const saved = await submit(base, 'save_weights', { model_id: a.modelId, seq_id: 2, path: 'mine' }, A);
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: a.modelId, seq_id: 3 }, A);
    const named = await submit(base, 'save_weights_for_sampler', { model_id: a.modelId, seq_id: 4, path: 'pub' }, A);
    const b = await newModel(base, B);

    const attempts: [string, unknown][] = [
      ['session_heartbeat', { session_id: a.sessionId }],
      ['create_model', { session_id: a.sessionId }],
      ['get_info', { model_id: a.modelId }],
      ['forward_backward', fb(a.modelId, 5)],
      ['forward', { model_id: a.modelId, forward_input: { data: [datum()], loss_fn: 'cross_entropy' } }],
      ['optim_step', { model_id: a.modelId, adam_params: { learning_rate: 1 } }],
      ['save_weights', { model_id: a.modelId, path: 'theirs' }],
      ['save_weights_for_sampler', { model_id: a.modelId }],
      ['unload_model', { model_id: a.modelId }],
      ['retrieve_future', { request_id: fut }],
      ['asample', { sampling_session_id: eph.sampling_session_id, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: 2 } }],
      ['asample', { model_path: named.path, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: 2 } }],
      ['create_sampling_session', { session_id: b.sessionId, model_path: named.path }],
    ];
    for (const [path, body] of attempts) {
      const r = await call(base, path, body, B);
      expect(r.status, `${path} by another key`).toBe(404);
    }
    // Loading another key's checkpoint into one's own model: the future fails as "no saved state" (404-like, user).
    const load = await submit(base, 'load_weights', { model_id: b.modelId, path: saved.path }, B);
    expect(load).toMatchObject({ category: 'user' });
    expect(load.error).toMatch(/no saved state/);
    // The OpenAI surface: neither listed nor sampled for the other key.
    const models = (await (await request(`${base}/v1/models`, { headers: B })).body.json()) as any;
    expect(models.data.map((m: any) => m.id)).toEqual(['agentrl/local']);
    const v1 = await request(`${base}/v1/completions`, {
      method: 'POST',
      headers: { ...B, 'content-type': 'application/json' },
      body: JSON.stringify({ model: named.path, prompt: [1, 2], max_tokens: 2 }),
    });
    expect(v1.statusCode).toBe(404);
    await v1.body.dump();
    const mine = (await (await request(`${base}/v1/models`, { headers: A })).body.json()) as any;
    expect(mine.data.map((m: any) => m.id)).toContain(named.path);

    // Nothing of A's changed, and A still works: its model trains, samples and loads its own checkpoint.
    expect(serve.service.modelCount).toBe(2);
    expect((await submit(base, 'forward_backward', fb(a.modelId, 5), A)).loss_fn_outputs).toHaveLength(1);
    expect(
      (
        await submit(
          base,
          'asample',
          { sampling_session_id: eph.sampling_session_id, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: 2 } },
          A,
        )
      ).sequences,
    ).toHaveLength(1);
    expect((await submit(base, 'load_weights', { model_id: a.modelId, seq_id: 6, path: saved.path }, A)).type).toBe('load_weights');
    // ids are unguessable (128 bits).
    expect(a.modelId).toMatch(/^model_[0-9a-f]{32}$/);
    expect(fut).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('tinker:// paths are parsed strictly and confined to the state folder', async () => {
    const a = await newModel(base, A);
    const bad = [
      'tinker://../weights/x',
      `tinker://${a.modelId}/weights/..`,
      `tinker://${a.modelId}/weights/.`,
      `tinker://${a.modelId}/weights/../../etc`,
      `tinker://${a.modelId}/weights/a/b`,
      'tinker:///etc/weights/x',
      'tinker://%2e%2e/weights/x',
      `tinker://${a.modelId}/weights/%2e%2e`,
      'tinker://a.b/weights/x',
      'tinker://a\\..\\b/weights/x',
      `tinker://${a.modelId}/other/x`,
      `tinker://${a.modelId}/weights/x?y=1`,
      `/abs/${a.modelId}/weights/x`,
      `file:///${a.modelId}/weights/x`,
    ];
    for (const path of bad) {
      const r = await call(base, 'load_weights', { model_id: a.modelId, path }, A);
      expect(r.status, path).toBe(400);
      const s = await call(base, 'asample', { model_path: path, prompt: { chunks: [{ tokens: [1] }] }, sampling_params: { max_tokens: 1 } }, A);
      expect([400, 404], path).toContain(s.status);
    }
    // A symbolic link inside the state folder pointing outside it is not followed.
    const saved = await submit(base, 'save_weights', { model_id: a.modelId, path: 'real' }, A);
    const outside = await mkdtemp(join(tmpdir(), 'agentrl-outside-'));
    try {
      await cp(join(stateDir, a.modelId, 'weights', 'real'), join(outside, 'stolen'), { recursive: true });
      await symlink(join(outside, 'stolen'), join(stateDir, a.modelId, 'weights', 'link'));
      const viaLink = await submit(base, 'load_weights', { model_id: a.modelId, path: `tinker://${a.modelId}/weights/link` }, A);
      expect(viaLink).toMatchObject({ category: 'user' });
      // A folder planted in the state folder without an owner record is nobody's.
      await mkdir(join(stateDir, 'model_planted', 'weights'), { recursive: true });
      await cp(join(stateDir, a.modelId, 'weights', 'real'), join(stateDir, 'model_planted', 'weights', 'x'), { recursive: true });
      const planted = await submit(base, 'load_weights', { model_id: a.modelId, path: 'tinker://model_planted/weights/x' }, A);
      expect(planted.error).toMatch(/no saved state/);
      await writeFile(join(stateDir, 'model_planted', 'owner'), 'not-a-tag');
      expect((await submit(base, 'load_weights', { model_id: a.modelId, path: 'tinker://model_planted/weights/x' }, A)).error).toMatch(/no saved state/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
    expect((await submit(base, 'load_weights', { model_id: a.modelId, path: saved.path }, A)).type).toBe('load_weights');
  });
});

describe('agentrl serve: sampler weight versions have a lifetime', () => {
  it('keeps the newest unnamed versions per model plus those in use; unloading frees all of the model', async () => {
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, serveLimits: { samplerVersionsPerModel: 2 } });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      const ids: string[] = [];
      let seq = 1;
      for (let i = 0; i < 3; i++) ids.push((await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: seq++ })).sampling_session_id);
      expect(serve.service.stats().samplerVersions).toBe(2);
      const sample = (id: string, maxTokens = 2) =>
        call(base, 'asample', { sampling_session_id: id, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: maxTokens, seed: 1 } });
      expect((await sample(ids[0]!)).status).toBe(404);
      // In use: a long sample on the oldest kept version, then two newer saves retire it — the sample still finishes.
      const long = (await sample(ids[1]!, 100)).body.request_id;
      for (let i = 0; i < 2; i++) ids.push((await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: seq++ })).sampling_session_id);
      expect((await sample(ids[1]!)).status).toBe(404);
      const done = await result(base, long);
      expect(done.sequences[0].tokens.length).toBeGreaterThan(0);
      expect(serve.service.stats().samplerVersions).toBe(2);
      // Named versions are kept until replaced under the same name or the model is unloaded.
      await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: seq++, path: 'keep' });
      await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: seq++, path: 'keep' });
      expect(serve.service.stats().samplerVersions).toBe(3);
      expect(
        (
          await submit(base, 'asample', {
            model_path: `tinker://${modelId}/sampler_weights/keep`,
            prompt: { chunks: [{ tokens: [1] }] },
            sampling_params: { max_tokens: 1 },
          })
        ).sequences,
      ).toHaveLength(1);
      await submit(base, 'unload_model', { model_id: modelId });
      expect(serve.service.stats()).toMatchObject({ samplerVersions: 0, models: 0 });
      expect((await sample(ids.at(-1)!)).status).toBe(404);
      // The server keeps serving: a new model samples normally.
      const next = await newModel(base);
      const id = (await submit(base, 'save_weights_for_sampler', { model_id: next.modelId, seq_id: 1 })).sampling_session_id;
      expect((await result(base, (await sample(id)).body.request_id)).sequences).toHaveLength(1);
    } finally {
      await serve.close();
    }
  });
});
