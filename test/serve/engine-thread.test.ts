import { describe, expect, it } from 'vitest';
import { createServeApp } from '../../apps/serve/tinker/index.js';
import { localBackend } from '../../src/backend/index.js';
import { TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// The default engineThread ('worker'): each model's engine in its own worker thread, so the HTTP layer, heartbeats
// and other models answer while one model's long forward_backward runs, with the answers of the in-process engine.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };
const PPO = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2, aggregation: 'token-sum' } as const;

describe('agentrl serve keeps the engine off the request thread (default options)', () => {
  it('answers healthz, a heartbeat and another model while a long forward_backward is still running', async () => {
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 50 });
    const base = await serve.listen();
    try {
      const a = await newModel(base);
      const b = await newModel(base);
      const small = [randomDatum(lcg(4), 20, 4), randomDatum(lcg(5), 30, 6)].map((d) => wireDatum(d, 'ppo'));
      const smallFb = (modelId: string) => submit(base, 'forward_backward', { model_id: modelId, forward_backward_input: { data: small, loss_fn: 'ppo' } });
      // Both engines started and compiled for small batches, so B's request below is only its own compute.
      await smallFb(a.modelId);
      await smallFb(b.modelId);
      // The long call must outlast the three probes. Its length depends on the machine, so the batch doubles until one
      // does; on a blocked thread no size can (every probe is answered only after the call has finished).
      let answeredWhileRunning = false;
      for (let datums = 40; datums <= 640 && !answeredWhileRunning; datums *= 2) {
        const big = Array.from({ length: datums }, (_, i) => wireDatum(randomDatum(lcg(100 + i), 120, 10), 'ppo'));
        const sub = await call(base, 'forward_backward', { model_id: a.modelId, forward_backward_input: { data: big, loss_fn: 'ppo' } });
        expect(sub.status).toBe(200);
        expect((await call(base, 'healthz')).status).toBe(200);
        expect((await call(base, 'session_heartbeat', { session_id: a.sessionId })).status).toBe(200);
        expect((await smallFb(b.modelId)).loss_fn_outputs).toHaveLength(2);
        const poll = await call(base, 'retrieve_future', { request_id: sub.body.request_id });
        answeredWhileRunning = poll.status === 200 && poll.body.type === 'try_again';
        expect((await result(base, sub.body.request_id)).loss_fn_outputs).toHaveLength(datums);
      }
      expect(answeredWhileRunning).toBe(true);
    } finally {
      await serve.close();
    }
  });

  it('gives the results and typed errors of the in-process engine', async () => {
    const local = localBackend(MODEL);
    const rnd = lcg(4);
    const small = [randomDatum(rnd, 20, 4), randomDatum(rnd, 30, 6)];
    const ref = await local.forwardBackward(small, PPO);
    const refS = await (await local.saveWeightsForSampler()).sample([1, 2, 3], { numSamples: 2, maxTokens: 6, seed: 5 });
    await local.close();
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200 });
    const base = await serve.listen();
    try {
      const { modelId } = await newModel(base);
      const fb = await submit(base, 'forward_backward', {
        model_id: modelId,
        forward_backward_input: { data: small.map((d) => wireDatum(d, 'ppo')), loss_fn: 'ppo' },
      });
      fb.loss_fn_outputs.forEach((o: any, i: number) => {
        o.logprobs.data.forEach((x: number, t: number) => {
          expect(x).toBeCloseTo(ref.logprobs[i]![t]!, 5);
        });
      });
      const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId });
      const s = await submit(base, 'asample', {
        sampling_session_id: eph.sampling_session_id,
        num_samples: 2,
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: 6, seed: 5 },
      });
      expect(s.sequences.map((q: any) => q.tokens)).toEqual(refS.map((q) => q.tokens));
      // Typed errors cross the thread: a token outside the vocabulary is a user error.
      const bad = await submit(base, 'forward', {
        model_id: modelId,
        forward_input: {
          data: [wireDatum({ ...small[0]!, modelInput: [99_999, ...small[0]!.modelInput.slice(1)] }, 'cross_entropy')],
          loss_fn: 'cross_entropy',
        },
      });
      expect(bad).toMatchObject({ category: 'user' });
    } finally {
      await serve.close();
    }
  });
});
