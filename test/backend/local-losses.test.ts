import { afterAll, describe, expect, it } from 'vitest';
import { referenceLoss } from '../../src/loss/index.js';
import type { LossConfig } from '../../src/types/loss-config.js';
import type { Datum } from '../../src/types/datum.js';
import { LOCAL_VOCAB, lcg, randomDatum, tinyBackend } from './helpers.js';

const backend = tinyBackend();
afterAll(() => backend.close());

const configs: LossConfig[] = [];
for (const aggregation of ['token-mean', 'sequence-mean', 'token-sum'] as const) {
  configs.push(
    { kind: 'cross_entropy', aggregation },
    { kind: 'importance_sampling', aggregation },
    { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation },
    { kind: 'cispo', clipHigh: 1.3, aggregation },
  );
}

describe('local engine losses', () => {
  const rnd = lcg(11);
  const datums: Datum[] = [randomDatum(rnd, 40, 10), randomDatum(rnd, 90, 30), randomDatum(rnd, 7, 2), randomDatum(rnd, 20, 20)];

  it.each(configs.map((c) => [`${c.kind}/${c.aggregation}`, c] as const))('%s equals the reference formula', async (_, cfg) => {
    // Hazard: the engine optimising a different objective than src/loss specifies.
    const r = await backend.forwardBackward(datums, cfg);
    const ref = referenceLoss(datums, r.logprobs, cfg);
    expect(Math.abs(r.metrics.loss! - ref.loss)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(ref.loss)));
    expect(r.metrics.tokens).toBe(ref.tokens);
    expect(r.metrics.clip_frac).toBeCloseTo(ref.clipFrac, 10);
    expect(r.metrics.kl_sample_train).toBeCloseTo(ref.klSampleTrain, 6);
    r.logprobs.forEach((lp, i) => {
      expect(lp.length).toBe(datums[i]!.modelInput.length);
    });
  });

  it('learner logprobs equal computeLogprobs of the same tokens', async () => {
    // Hazard: training on logprobs that differ from what the sampler/evaluator sees.
    const d = datums[1]!;
    const r = await backend.forwardBackward([d], { kind: 'cross_entropy' });
    const full = await backend.computeLogprobs([...d.modelInput, d.targetTokens[d.targetTokens.length - 1]!]);
    const diff = Math.max(...r.logprobs[0]!.map((x, t) => Math.abs(x - full[t + 1]!)));
    expect(diff).toBeLessThanOrEqual(1e-4);
  });

  it('masked and padded positions contribute exactly 0 to loss and gradients', async () => {
    // Hazard: prompt/observation tokens or batch padding leaking into the policy gradient.
    const cfg: LossConfig = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 };
    const d = datums[0]!;
    const noisy: Datum = {
      ...d,
      targetTokens: d.targetTokens.map((t, i) => (d.mask[i] ? t : (t + 17) % LOCAL_VOCAB)),
      logprobs: d.logprobs.map((x, i) => (d.mask[i] ? x : 50)),
      // Advantages stay 0 where mask is 0: a datum with an advantage there is refused at the boundary
      // (test/backend/datum-boundary.test.ts), so the leak it could cause cannot reach the engine.
    };
    const a = tinyBackend();
    const b = tinyBackend();
    const ra = await a.forwardBackward([d], cfg);
    // Same datum next to a longer one: it is padded differently inside the engine.
    const rb = await b.forwardBackward([noisy, { ...datums[1]!, mask: datums[1]!.mask.map(() => 0), advantages: datums[1]!.advantages.map(() => 0) }], cfg);
    expect(rb.metrics.loss).toBe(ra.metrics.loss);
    const ga = await a.optimStep({ learningRate: 1e-2 });
    const gb = await b.optimStep({ learningRate: 1e-2 });
    expect(gb.metrics.grad_norm).toBeCloseTo(ga.metrics.grad_norm!, 6);
    const la = await a.computeLogprobs(d.modelInput);
    const lb = await b.computeLogprobs(d.modelInput);
    expect(Math.max(...la.slice(1).map((x, i) => Math.abs(x! - lb[i + 1]!)))).toBeLessThan(1e-5);
    await a.close();
    await b.close();
  });

  it('weight scales gradients, not the reported loss', async () => {
    // Hazard: micro-batch n_k/N weighting applied twice or not at all.
    const a = tinyBackend();
    const b = tinyBackend();
    const cfg: LossConfig = { kind: 'importance_sampling', aggregation: 'token-sum' };
    const ra = await a.forwardBackward(datums.slice(0, 2), cfg);
    const rb = await b.forwardBackward(datums.slice(0, 2), cfg, { weight: 0.25 });
    expect(rb.metrics.loss).toBeCloseTo(ra.metrics.loss!, 4);
    const ga = (await a.optimStep({ learningRate: 0, gradClipNorm: 0 })).metrics.grad_norm!;
    const gb = (await b.optimStep({ learningRate: 0, gradClipNorm: 0 })).metrics.grad_norm!;
    expect(gb / ga).toBeCloseTo(0.25, 4);
    await a.close();
    await b.close();
  });
});
