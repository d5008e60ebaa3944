import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parameterCount } from '../../src/backend/local/model-config.js';
import { createServeApp } from '../../apps/serve/tinker/index.js';
import { LOCAL_VOCAB, TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// Checkpoints count against a per-session and a total byte limit of the state folder: a save past either is refused
// with {error, category: "user"} before anything is written, its seq_id stays unused, and deleting frees the bytes.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
// What the server books per save (weights + two Adam moments as float32, 64 KiB for headers and config); a written
// checkpoint is a little smaller.
const ESTIMATE = 12 * parameterCount({ ...MODEL, vocabSize: LOCAL_VOCAB }) + 64 * 1024;
const BUDGET = Math.floor(2.5 * ESTIMATE); // room for two checkpoints, not three

let stateDir: string;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'agentrl-state-limit-'));
});
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const fb = (modelId: string, seqId: number) => ({
  model_id: modelId,
  seq_id: seqId,
  forward_backward_input: { data: [wireDatum(randomDatum(lcg(seqId), 16, 4), 'cross_entropy')], loss_fn: 'cross_entropy' },
});

describe('agentrl serve: state-folder byte limits', () => {
  it('per session: saves past the budget are refused before writing; the next request runs; deleting frees room', async () => {
    const dir = join(stateDir, 'per-session');
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 100, stateDir: dir, serveLimits: { maxStateBytesPerSession: BUDGET } });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      expect((await submit(base, 'save_weights', { model_id: modelId, seq_id: 1, path: 'one' })).path).toBe(`tinker://${modelId}/weights/one`);
      // Overwriting a name does not grow what the session holds.
      for (let i = 0; i < 3; i++) expect((await submit(base, 'save_weights', { model_id: modelId, path: 'one' })).path).toContain('/one');
      expect((await submit(base, 'save_weights', { model_id: modelId, seq_id: 2, path: 'two' })).path).toContain('/two');
      const held = serve.service.stats().stateBytes;
      expect(held).toBeGreaterThan(1.5 * ESTIMATE);
      expect(held).toBeLessThanOrEqual(2 * ESTIMATE);
      // Training state and named sampler weights both count; each refusal names the limit, writes nothing.
      for (const [path, body] of [
        ['save_weights', { model_id: modelId, seq_id: 3, path: 'three' }],
        ['save_weights', { model_id: modelId, seq_id: 3 }],
        ['save_weights_for_sampler', { model_id: modelId, seq_id: 3, path: 'sampler-three' }],
      ] as const) {
        const r = await call(base, path, body);
        expect(r.status, path).toBe(400);
        expect(r.body).toMatchObject({ category: 'user' });
        expect(r.body.error).toContain('maxStateBytesPerSession');
      }
      expect(existsSync(join(dir, modelId, 'weights', 'three'))).toBe(false);
      expect(existsSync(join(dir, modelId, 'sampler_weights', 'sampler-three'))).toBe(false);
      expect(serve.service.stats().stateBytes).toBe(held);
      // The refused seq_id 3 stays unused: the next request takes it and runs (it is not held for a gap).
      expect((await submit(base, 'forward_backward', fb(modelId, 3))).loss_fn_outputs).toHaveLength(1);
      // Unnamed sampler versions live in memory and are not counted.
      const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId, seq_id: 4 });
      expect(eph.sampling_session_id).toMatch(/^sampler_/);
      // Deleting a checkpoint frees its bytes: the save that was refused now goes through.
      const del = await request(`${base}/api/v1/training_runs/${modelId}/checkpoints/weights/one`, { method: 'DELETE' });
      await del.body.dump();
      expect(del.statusCode).toBe(204);
      expect(serve.service.stats().stateBytes).toBeLessThan(held);
      expect((await submit(base, 'save_weights', { model_id: modelId, seq_id: 5, path: 'three' })).path).toContain('/three');
      expect(existsSync(join(dir, modelId, 'weights', 'three', 'config.json'))).toBe(true);
    } finally {
      await serve.close();
    }
  });

  it('in all: another session is refused once the server holds the total; a save that fails frees its booking', async () => {
    const dir = join(stateDir, 'total');
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 100, stateDir: dir, serveLimits: { maxStateBytes: BUDGET } });
    const base = await serve.listen();
    try {
      const a = await newModel(base);
      const b = await newModel(base);
      expect((await submit(base, 'save_weights_for_sampler', { model_id: a.modelId, path: 'a-named' })).path).toContain('/sampler_weights/a-named');
      expect((await submit(base, 'save_weights', { model_id: b.modelId, path: 'b-one' })).path).toContain('/b-one');
      const r = await call(base, 'save_weights', { model_id: b.modelId, path: 'b-two' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ category: 'user' });
      expect(r.body.error).toContain('maxStateBytes');
      expect(existsSync(join(dir, b.modelId, 'weights', 'b-two'))).toBe(false);
      // A queued save whose model goes away before it runs books nothing once it has failed.
      const before = serve.service.stats().stateBytes;
      const del = await request(`${base}/api/v1/training_runs/${a.modelId}/checkpoints/sampler_weights/a-named`, { method: 'DELETE' });
      await del.body.dump();
      const freed = serve.service.stats().stateBytes;
      expect(freed).toBeLessThan(before);
      const unload = await call(base, 'unload_model', { model_id: a.modelId });
      const late = await call(base, 'save_weights', { model_id: a.modelId, path: 'late' });
      if (late.status === 200) expect((await result(base, late.body.request_id)).error ?? '').toContain('unloaded');
      await result(base, unload.body.request_id);
      expect(serve.service.stats().stateBytes).toBe(freed);
      // Other requests go on.
      expect((await submit(base, 'forward_backward', fb(b.modelId, 1))).loss_fn_outputs).toHaveLength(1);
      expect((await submit(base, 'save_weights', { model_id: b.modelId, path: 'b-two' })).path).toContain('/b-two');
    } finally {
      await serve.close();
    }
  });
});
