import { describe, expect, it } from 'vitest';
import { createServeApp } from '../../apps/serve/tinker/index.js';
import { TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// The Tinker API's work for a session that is gone: its sampling stops at the next token boundary and its model's
// unfinished requests fail at once (their bodies freed), and the server goes on serving the others.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: 1024, seed: TINY.seed! };
const prompt = { chunks: [{ tokens: [1, 2, 3] }] };
// Each test starts one or two engine workers (each compiles its kernels): minutes on a loaded 2-core machine.
const SLOW = 400_000;
// 64 × 1,000 tokens: far more decoding than the few milliseconds between the submit and the expiry below.
const longSample = (id: string) => ({ sampling_session_id: id, num_samples: 64, prompt, sampling_params: { max_tokens: 1000, seed: 3 } });
const fbBody = (modelId: string, datums: number, seed: number, seqId?: number) => ({
  model_id: modelId,
  ...(seqId !== undefined ? { seq_id: seqId } : {}),
  forward_backward_input: { data: Array.from({ length: datums }, (_, i) => wireDatum(randomDatum(lcg(seed + i), 120, 10), 'ppo')), loss_fn: 'ppo' },
});

/** A fresh session trains and samples (heartbeating meanwhile, as a client does, so a short session timeout holds). */
async function normalRequestWorks(base: string): Promise<void> {
  const sessionId = (await call(base, 'create_session', {})).body.session_id as string;
  const beat = setInterval(() => void call(base, 'session_heartbeat', { session_id: sessionId }).catch(() => undefined), 100);
  try {
    const { model_id: modelId } = await submit(base, 'create_model', { session_id: sessionId, model_seq_id: 0, lora_config: { rank: 8 } });
    expect((await submit(base, 'forward_backward', fbBody(modelId, 2, 1))).loss_fn_outputs).toHaveLength(2);
    const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId });
    expect(
      (await submit(base, 'asample', { sampling_session_id: eph.sampling_session_id, num_samples: 2, prompt, sampling_params: { max_tokens: 4, seed: 1 } }))
        .sequences,
    ).toHaveLength(2);
  } finally {
    clearInterval(beat);
  }
}

describe('agentrl serve drops the work of a session that is gone', () => {
  it(
    'a sampling call in progress ends with the expiry as its error; another session goes on',
    async () => {
      const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 100 });
      const base = await serve.listen();
      try {
        const { sessionId, modelId } = await newModel(base);
        const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId });
        const other = await call(base, 'create_session', {});
        const gone = await call(base, 'asample', longSample(eph.sampling_session_id));
        expect(gone.status).toBe(200);
        // Another session is not touched: it heartbeats after the cutoff.
        const cutoff = Date.now() + 1;
        await new Promise((r) => setTimeout(r, 5));
        expect((await call(base, 'session_heartbeat', { session_id: other.body.session_id })).status).toBe(200);
        await serve.service.expireSessions(cutoff);
        const r = await result(base, gone.body.request_id);
        expect(r).toMatchObject({ category: 'user' });
        expect(r.error).toContain(`session ${sessionId} expired`);
        expect(r.sequences).toBeUndefined();
        expect((await call(base, 'session_heartbeat', { session_id: sessionId })).status).toBe(404);
        expect((await call(base, 'session_heartbeat', { session_id: other.body.session_id })).status).toBe(200);
        expect(serve.service.stats()).toMatchObject({ sessions: 1, models: 0, queued: 0 });
        await normalRequestWorks(base);
      } finally {
        await serve.close();
      }
    },
    SLOW,
  );

  it(
    'unfinished requests of its models fail at once; one already running runs to its end',
    async () => {
      const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 100 });
      const base = await serve.listen();
      try {
        const { sessionId, modelId } = await newModel(base);
        const survivor = await newModel(base);
        const running = await call(base, 'forward_backward', fbBody(modelId, 200, 50));
        const queued = [];
        for (let i = 0; i < 5; i++) queued.push(await call(base, 'forward_backward', fbBody(modelId, 2, 10 * i)));
        const optim = await call(base, 'optim_step', { model_id: modelId, adam_params: { learning_rate: 1e-3 } });
        for (const r of [running, ...queued, optim]) expect(r.status).toBe(200);
        // Only the first session is past the cutoff: the survivor heartbeats just after it.
        const cutoff = Date.now() + 1;
        await new Promise((r) => setTimeout(r, 5));
        expect((await call(base, 'session_heartbeat', { session_id: survivor.sessionId })).status).toBe(200);
        await serve.service.expireSessions(cutoff);
        const last = await result(base, optim.body.request_id);
        expect(last).toMatchObject({ category: 'user' });
        expect(last.error).toContain(`session ${sessionId} expired`);
        for (const q of queued) {
          const r = await result(base, q.body.request_id);
          // Each either had started before the expiry (then it ran) or failed naming it; the last one cannot have started.
          if (r.error !== undefined) expect(r.error).toContain('expired');
        }
        expect((await result(base, queued.at(-1)!.body.request_id)).error).toContain('expired');
        const first = await result(base, running.body.request_id);
        expect(first.loss_fn_outputs ?? first.error).toBeDefined();
        expect(serve.service.stats().queued).toBe(0);
        // The survivor's model still trains.
        expect((await submit(base, 'forward_backward', fbBody(survivor.modelId, 2, 7))).loss_fn_outputs).toHaveLength(2);
        await normalRequestWorks(base);
      } finally {
        await serve.close();
      }
    },
    SLOW,
  );

  it(
    'a session that stops sending heartbeats loses its held requests to the expiry, not to the out-of-order timeout',
    async () => {
      const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 100, sessionTimeoutMs: 1000 });
      const base = await serve.listen();
      try {
        const { sessionId, modelId } = await newModel(base);
        // seq_id 1 never comes: 2 and 3 are held (queued futures), and nothing heartbeats.
        const held = [await call(base, 'forward_backward', fbBody(modelId, 2, 1, 2)), await call(base, 'forward_backward', fbBody(modelId, 2, 2, 3))];
        for (const h of held) {
          expect(h.status).toBe(200);
          const r = await result(base, h.body.request_id);
          expect(r).toMatchObject({ category: 'user' });
          expect(r.error).toContain(`session ${sessionId} expired (no heartbeat)`);
        }
        expect(serve.service.stats()).toMatchObject({ models: 0, outOfOrder: 0, queued: 0 });
        // A new session works (requests that need no engine: a 1 s session timeout is tight on a loaded machine).
        const next = await newModel(base);
        expect((await call(base, 'session_heartbeat', { session_id: next.sessionId })).status).toBe(200);
        expect((await call(base, 'get_info', { model_id: next.modelId })).body).toMatchObject({ model_id: next.modelId });
      } finally {
        await serve.close();
      }
    },
    SLOW,
  );
});
