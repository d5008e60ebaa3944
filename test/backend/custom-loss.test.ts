import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { forwardBackwardCustom, WEIGHTED_CROSS_ENTROPY } from '../../src/backend/custom-loss.js';
import { tinkerBackend } from '../../src/backend/tinker/index.js';
import type { TrainingBackend } from '../../src/backend/types.js';
import { defineLoss, LOSSES, referenceLoss } from '../../src/loss/index.js';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import type { Datum } from '../../src/types/datum.js';
import type { LossConfig } from '../../src/types/loss-config.js';
import { lcg, randomDatum, TINY, tinyBackend } from './helpers.js';

const rnd = lcg(5);
const datums: Datum[] = [randomDatum(rnd, 30, 8), randomDatum(rnd, 12, 3), randomDatum(rnd, 50, 20)];
const probe = [...datums[0]!.modelInput, datums[0]!.targetTokens.at(-1)!];
const NATIVE: LossConfig[] = [
  { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'sequence-mean' },
  { kind: 'importance_sampling' },
  { kind: 'cispo', clipHigh: 1.2, aggregation: 'token-sum' },
  { kind: 'cross_entropy' },
];

/** The native kind, rewritten as a user-defined loss from its registry formula (so it cannot take the native path). */
const asCustom = (cfg: LossConfig): LossConfig => ({
  kind: 'custom',
  loss: defineLoss({
    name: `as-${cfg.kind}`,
    level: 'token',
    perToken: (s) => LOSSES[cfg.kind].perToken(cfg as never, s),
    grad: (s, c) => LOSSES[cfg.kind].grad(cfg as never, s, c),
  }),
  ...(cfg.aggregation ? { aggregation: cfg.aggregation } : {}),
});

/** Gradient norm and the probe's logprobs after one SGD-like Adam step. */
async function step(b: TrainingBackend, cfg: LossConfig, weight: number): Promise<{ loss: number; norm: number; after: number[] }> {
  const r = await b.forwardBackward(datums, cfg, { weight });
  const s = await b.optimStep({ learningRate: 1e-2, gradClipNorm: 0 });
  const after = (await b.computeLogprobs(probe)).slice(1) as number[];
  return { loss: r.metrics['loss']!, norm: s.metrics['grad_norm']!, after };
}

describe('custom-loss path on the embedded engine (forward, then weighted cross-entropy backward)', () => {
  it.each(NATIVE.map((c) => [c.kind, c] as const))('%s: the custom path gives the native gradient', async (_, cfg) => {
    // Hazard: the forward_backward_custom weights off by a sign, a coefficient or the micro-batch weight.
    const a = tinyBackend();
    const b = tinyBackend();
    const native = await step(a, cfg, 0.5);
    const custom = await step(b, asCustom(cfg), 0.5);
    expect(custom.loss).toBeCloseTo(native.loss, 5);
    expect(Math.abs(custom.norm - native.norm)).toBeLessThanOrEqual(1e-4 * native.norm);
    custom.after.forEach((x, t) => {
      expect(x).toBeCloseTo(native.after[t]!, 4);
    });
    await a.close();
    await b.close();
  });

  it('gspo runs, reports the reference loss and metrics, and changes the weights', async () => {
    const b = tinyBackend();
    const cfg: LossConfig = { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1, aggregation: 'sequence-mean' };
    const before = (await b.computeLogprobs(probe)).slice(1) as number[];
    const r = await b.forwardBackward(datums, cfg);
    const ref = referenceLoss(datums, r.logprobs, cfg);
    expect(r.metrics['loss']).toBeCloseTo(ref.loss, 5);
    expect(r.metrics['clip_frac']).toBeCloseTo(ref.clipFrac, 10);
    expect(r.metrics['entropy_sampled']).toBeCloseTo(ref.entropySampled, 5);
    const s = await b.optimStep({ learningRate: 1e-2 });
    expect(s.metrics['grad_norm']).toBeGreaterThan(0);
    const after = (await b.computeLogprobs(probe)).slice(1) as number[];
    expect(Math.max(...after.map((x, t) => Math.abs(x - before[t]!)))).toBeGreaterThan(1e-4);
    await b.close();
  });

  it('the driver refuses nothing native: forwardBackwardCustom on ppo equals the engine kernel', async () => {
    const a = tinyBackend();
    const b = tinyBackend();
    const cfg = NATIVE[0]!;
    await a.forwardBackward(datums, cfg);
    const ga = (await a.optimStep({ learningRate: 0, gradClipNorm: 0 })).metrics['grad_norm']!;
    const steps = {
      forward: async (d: readonly Datum[]) => (await b.forwardBackward(d, { kind: 'cross_entropy', aggregation: 'token-sum' }, { weight: 0 })).logprobs,
      weightedBackward: (d: readonly Datum[]) => b.forwardBackward(d, WEIGHTED_CROSS_ENTROPY),
    };
    await forwardBackwardCustom(steps, datums, cfg, 1);
    const gb = (await b.optimStep({ learningRate: 0, gradClipNorm: 0 })).metrics['grad_norm']!;
    expect(Math.abs(gb - ga)).toBeLessThanOrEqual(1e-4 * ga);
    await a.close();
    await b.close();
  });
});

describe('custom-loss path over HTTP: tinkerBackend → agentrl serve', () => {
  let serve: ServeApp | undefined;
  afterAll(async () => serve?.close());
  const connect = async (): Promise<TrainingBackend> => {
    serve ??= createServeApp({
      port: 0,
      model: { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: TINY.contextTokens!, seed: TINY.seed! },
    });
    const url = await serve.listen();
    return tinkerBackend({
      baseUrl: url,
      baseModel: 'agentrl/local',
      renderer: fileURLToPath(new URL('../../assets/local-model', import.meta.url)),
      maxContextTokens: TINY.contextTokens!,
      retry: { tryAgainDelayMs: 0 },
    });
  };

  it('ppo as a custom loss over the wire gives the gradient of the native ppo loss_fn; gspo runs with the same metrics', async () => {
    const a = await connect();
    const b = await connect();
    const cfg = NATIVE[0]!;
    const native = await step(a, cfg, 1);
    const custom = await step(b, asCustom(cfg), 1);
    expect(custom.loss).toBeCloseTo(native.loss, 4);
    expect(Math.abs(custom.norm - native.norm)).toBeLessThanOrEqual(1e-3 * native.norm);
    custom.after.forEach((x, t) => {
      expect(x).toBeCloseTo(native.after[t]!, 3);
    });
    const gspo: LossConfig = { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 };
    const r = await b.forwardBackward(datums, gspo);
    const ref = referenceLoss(datums, r.logprobs, gspo);
    expect(r.metrics['loss']).toBeCloseTo(ref.loss, 4);
    expect(Object.keys(r.metrics).sort()).toEqual(['clip_frac', 'entropy_sampled', 'kl_sample_train', 'loss', 'tokens']);
    await a.close();
    await b.close();
  });
});
