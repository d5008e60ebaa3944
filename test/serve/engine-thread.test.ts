import { describe, expect, it } from 'vitest';
import { createServeApp } from '../../src/serve/tinker/index.js';
import { localBackend } from '../../src/backend/index.js';
import { TINY, lcg, randomDatum } from '../backend/helpers.js';
import { call, newModel, result, submit, wireDatum } from './raw-client.js';

// engineThread: 'worker' — each model's engine in its own worker thread: healthz and heartbeats answer within
// 100 ms while a long forward_backward runs, and the answers are those of the in-process engine.
const MODEL = { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! };

describe("agentrl serve with engineThread: 'worker'", () => {
  it('answers healthz and heartbeats within 100 ms while a long forward_backward runs; same results as in-process', async () => {
    // Reference answers first, in-process (this thread), before the server runs: a thread blocked by the engine would
    // stall the server's keep-alive timers too.
    const local = localBackend(MODEL);
    const rnd = lcg(4);
    const small = [randomDatum(rnd, 20, 4), randomDatum(rnd, 30, 6)];
    const ref = await local.forwardBackward(small, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2, aggregation: 'token-sum' });
    const refS = await (await local.saveWeightsForSampler()).sample([1, 2, 3], { numSamples: 2, maxTokens: 6, seed: 5 });
    await local.close();
    const serve = createServeApp({ port: 0, model: MODEL, pollTimeoutMs: 200, engineThread: 'worker' });
    const base = await serve.listen();
    try {
      const { sessionId, modelId } = await newModel(base);
      const fb = await submit(base, 'forward_backward', { model_id: modelId, forward_backward_input: { data: small.map((d) => wireDatum(d, 'ppo')), loss_fn: 'ppo' } });
      fb.loss_fn_outputs.forEach((o: any, i: number) => o.logprobs.data.forEach((x: number, t: number) => expect(x).toBeCloseTo(ref.logprobs[i]![t]!, 5)));
      const eph = await submit(base, 'save_weights_for_sampler', { model_id: modelId });
      const s = await submit(base, 'asample', { sampling_session_id: eph.sampling_session_id, num_samples: 2, prompt: { chunks: [{ tokens: [1, 2, 3] }] }, sampling_params: { max_tokens: 6, seed: 5 } });
      expect(s.sequences.map((q: any) => q.tokens)).toEqual(refS.map((q) => q.tokens));
      // Typed errors cross the thread: a token outside the vocabulary is a user error.
      const bad = await submit(base, 'forward', { model_id: modelId, forward_input: { data: [wireDatum({ ...small[0]!, modelInput: [99_999, ...small[0]!.modelInput.slice(1)] }, 'cross_entropy')], loss_fn: 'cross_entropy' } });
      expect(bad).toMatchObject({ category: 'user' });

      const big = Array.from({ length: 40 }, (_, i) => wireDatum(randomDatum(lcg(100 + i), 120, 10), 'ppo'));
      const t0 = Date.now();
      const sub = await call(base, 'forward_backward', { model_id: modelId, forward_backward_input: { data: big, loss_fn: 'ppo' } });
      let finished = false;
      const res = result(base, sub.body.request_id).then((r) => ((finished = true), r));
      const latencies: number[] = [];
      while (!finished) {
        const t = Date.now();
        expect((await call(base, 'healthz')).status).toBe(200);
        expect((await call(base, 'session_heartbeat', { session_id: sessionId })).status).toBe(200);
        latencies.push(Date.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      const total = Date.now() - t0;
      expect((await res).loss_fn_outputs).toHaveLength(40);
      latencies.sort((a, b) => a - b);
      // A blocked thread would answer the first poll only after the whole call (total ms).
      expect(total).toBeGreaterThan(1000);
      expect(latencies.length).toBeGreaterThan(5);
      expect(latencies[Math.floor(latencies.length / 2)]!).toBeLessThan(100);
      expect(latencies.at(-1)!).toBeLessThan(Math.max(250, total / 4));
    } finally {
      await serve.close();
    }
  });
});
