import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { tinkerProto } from '../../src/backend/tinker/proto.js';
import { TINY } from '../backend/helpers.js';
import { call, result, submit } from './raw-client.js';
import * as fx from './sdk-fixtures.js';
import { datum026, fb026, SAMPLE_026, type Span } from './sdk-fixtures-026.js';

const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };

async function postProto(base: string, body: Uint8Array): Promise<{ status: number; body: any }> {
  const res = await request(`${base}/api/v1/forward_backward`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body, reset: true });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

async function model(base: string, version: string): Promise<{ sessionId: string; modelId: string }> {
  const s = await call(base, 'create_session', fx.CREATE_SESSION(version));
  const m = await submit(base, 'create_model', fx.CREATE_MODEL(s.body.session_id));
  return { sessionId: s.body.session_id, modelId: m.model_id };
}

/** DATUM has 4 input tokens and 4 targets: prompt [3] + sampled [1, 4, 1] as the SDK's with_provenance would tile them. */
const GOOD_INPUT: Span[] = [
  { kind: 'prompt', sequenceId: 'sess:0:0', length: 1 },
  { kind: 'sampled', sequenceId: 'sess:0:0', length: 3 },
];
const GOOD_LOSS: Span[] = [
  { kind: 'prompt', sequenceId: 'sess:0:0', offset: 1, length: 1 },
  { kind: 'sampled', sequenceId: 'sess:0:0', length: 2 },
  { kind: 'sampled', sequenceId: 'sess:0:1', offset: 3, length: 1 },
];

describe('agentrl serve answers SDK ≥ 0.26 requests (hand-written bytes)', () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    base = await serve.listen();
  });
  afterAll(() => serve.close());

  it('loss_fn_config_v2 with its mirror and a tiling provenance pair train exactly as the 0.25 body does', async () => {
    const a = await model(base, '0.25.0');
    const b = await model(base, '0.39.0');
    const T = tinkerProto.type('ForwardBackwardRequest');
    const old = await postProto(base, T.encode(T.fromObject(fx.FB_PROTO(a.modelId, 1, false))).finish());
    expect(old.status).toBe(200);
    const neu = await postProto(
      base,
      fb026({ modelId: b.modelId, seqId: 1, v2: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 }, datum: datum026(GOOD_INPUT, GOOD_LOSS) }),
    );
    expect(neu.status, JSON.stringify(neu.body)).toBe(200);
    const [ra, rb] = [await result(base, old.body.request_id), await result(base, neu.body.request_id)];
    expect(rb.error).toBeUndefined();
    expect(rb.loss_fn_outputs).toEqual(ra.loss_fn_outputs);
    expect(rb.metrics).toEqual(ra.metrics);
  });

  it('a server prefers loss_fn_config_v2 over the legacy map: the v2 value is the one range-checked and used', async () => {
    const m = await model(base, '0.39.0');
    // v2 out of range, legacy mirror fine: refused, so v2 was read.
    const bad = await postProto(
      base,
      fb026({
        modelId: m.modelId,
        seqId: 1,
        v2: { clip_low_threshold: 0.8, clip_high_threshold: 5000 },
        legacy: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      }),
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('loss_fn_config');
    // v2 says 1.28, legacy says 5000 (out of range): accepted, so the legacy map was not read.
    const good = await postProto(
      base,
      fb026({
        modelId: m.modelId,
        seqId: 1,
        v2: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
        legacy: { clip_low_threshold: 0.8, clip_high_threshold: 5000 },
      }),
    );
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect((await result(base, good.body.request_id)).error).toBeUndefined();
  });

  it('a text LossConfigValue, or one with no arm, is refused by key', async () => {
    const m = await model(base, '0.39.0');
    const text = await postProto(base, fb026({ modelId: m.modelId, seqId: 1, v2: { clip_low_threshold: 0.8, clip_high_threshold: 'wide' } }));
    expect(text.status).toBe(400);
    expect(text.body.error).toContain('loss_fn_config_v2.clip_high_threshold');
    expect(text.body.category).toBe('user');
    const empty = await postProto(base, fb026({ modelId: m.modelId, seqId: 1, v2: { clip_low_threshold: 'empty', clip_high_threshold: 1.28 } }));
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('loss_fn_config_v2.clip_low_threshold');
  });

  it("loss_fn 'stable_reinforce' with a valid provenance pair is refused by name, never trained as another loss", async () => {
    const m = await model(base, '0.39.0');
    const r = await postProto(base, fb026({ modelId: m.modelId, seqId: 1, v2: {}, lossFn: 'stable_reinforce', datum: datum026(GOOD_INPUT, GOOD_LOSS) }));
    // Refused at submission (400) or as the future's user error: either way it names the loss.
    const error = r.status === 200 ? (await result(base, r.body.request_id)).error : r.body.error;
    expect(r.status === 200 || r.status === 400).toBe(true);
    expect(error).toContain('stable_reinforce');
  });

  it.each<[string, Span[], Span[], string]>([
    ['only model_input_spans', GOOD_INPUT, [], 'pair'],
    ['only loss_fn_input_spans', [], GOOD_LOSS, 'pair'],
    ['input runs short of the 4 tokens', [{ kind: 'prompt', sequenceId: 's', length: 3 }], GOOD_LOSS, 'model_input_spans'],
    ['loss runs past the 4 targets', GOOD_INPUT, [{ kind: 'sampled', sequenceId: 's', length: 5 }], 'loss_fn_input_spans'],
    [
      'a zero-length run',
      [
        { kind: 'prompt', sequenceId: 's', length: 0 },
        { kind: 'prompt', sequenceId: 's', length: 4 },
      ],
      GOOD_LOSS,
      'length',
    ],
    ['an empty sequence_id', [{ kind: 'sampled', sequenceId: '', length: 4 }], GOOD_LOSS, 'sequence_id'],
    ['a negative offset', GOOD_INPUT, [{ kind: 'sampled', sequenceId: 's', offset: -1, length: 4 }], 'offset'],
  ])('provenance: %s is a 400 naming the rule', async (_name, input, loss, word) => {
    const m = await model(base, '0.39.0');
    const r = await postProto(
      base,
      fb026({ modelId: m.modelId, seqId: 1, v2: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 }, datum: datum026(input, loss) }),
    );
    expect(r.status).toBe(400);
    expect(r.body.error).toContain(word);
    expect(r.body.error).toContain('data[0]');
  });

  it('user_metadata on save_weights / named save_weights_for_sampler comes back as Checkpoint.user_metadata; an overwrite without it clears it', async () => {
    const m = await model(base, '0.39.0');
    const meta = { step: '3', note: 'ünïcode ok', empty: '' };
    const saved = await submit(base, 'save_weights', { model_id: m.modelId, seq_id: 1, path: 'meta-1', user_metadata: meta, type: 'save_weights' });
    const snap = await submit(base, 'save_weights_for_sampler', {
      model_id: m.modelId,
      seq_id: 2,
      path: 'snap-1',
      user_metadata: { kind: 'eval' },
      type: 'save_weights_for_sampler',
    });
    const plain = await submit(base, 'save_weights', { model_id: m.modelId, seq_id: 3, path: 'plain', type: 'save_weights' });
    const listed = async () =>
      Object.fromEntries(((await call(base, `training_runs/${m.modelId}/checkpoints`)).body.checkpoints as any[]).map((c) => [c.tinker_path, c.user_metadata]));
    expect(await listed()).toEqual({ [saved.path]: meta, [snap.path]: { kind: 'eval' }, [plain.path]: null });
    await submit(base, 'save_weights', { model_id: m.modelId, seq_id: 4, path: 'meta-1', overwrite: true, type: 'save_weights' });
    expect((await listed())[saved.path]).toBeNull();
  });

  it.each<[string, unknown]>([
    ['a number value', { step: 3 }],
    ['a nested value', { a: { b: 'c' } }],
    ['an empty key', { '': 'x' }],
    ['a 1,025-character value', { k: 'x'.repeat(1025) }],
    ['65 entries', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']))],
  ])('user_metadata with %s is a 400 naming it, before the seq_id runs', async (_name, meta) => {
    const m = await model(base, '0.39.0');
    const r = await call(base, 'save_weights', { model_id: m.modelId, seq_id: 1, path: 'bad', user_metadata: meta, type: 'save_weights' });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('user_metadata');
  });

  it('asample: the ≥ 0.26 fields at their defaults are served; each set away from it is a 400 naming it', async () => {
    const m = await model(base, '0.39.0');
    const sw = await submit(base, 'save_weights_for_sampler', { model_id: m.modelId, seq_id: 1, sampling_session_seq_id: 0, type: 'save_weights_for_sampler' });
    const id = sw.sampling_session_id as string;
    const ok = await call(base, 'asample', SAMPLE_026(id, { record_stability_info: false }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const out = await result(base, ok.body.request_id);
    expect(out.sequences).toHaveLength(2);
    for (const [field, value] of [
      ['record_stability_info', true],
      ['topk_sample_logprobs', 2],
      ['topk_prompt_logprobs', 3],
      ['target_prompt_logprobs', { data: [1, 2], dtype: 'int64', shape: [2, 1] }],
    ] as const) {
      const r = await call(base, 'asample', SAMPLE_026(id, { [field]: value }));
      expect(r.status, field).toBe(400);
      expect(r.body.error).toContain(field);
      expect(r.body.category).toBe('user');
    }
  });
});
