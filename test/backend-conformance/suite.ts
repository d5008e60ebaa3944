/**
 * The backend conformance suite: the same cases against any `TrainingBackend`, each checked against an in-process
 * `localBackend` of the same shape and seed (the reference). A backend conforms when the same datums give the same
 * loss and logprobs (≤ 1e-5), the same Adam update, reproducible seeded samples, a `saveState`/`loadState`
 * round trip, and the typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localBackend, type TrainingBackend } from '../../src/backend/index.js';
import { BackendInputError } from '../../src/errors/index.js';
import type { LossConfig } from '../../src/types/loss-config.js';
import { LOCAL_VOCAB, TINY, lcg, randomDatum } from '../backend/helpers.js';

/** What a conformance run needs from the backend under test. */
export interface ConformanceTarget {
  /** Name shown in the test titles, e.g. `'tinkerBackend → agentrl serve'`. */
  readonly name: string;
  /** A fresh backend whose model is {@link CONFORMANCE_MODEL} (same weights as `localBackend(CONFORMANCE_MODEL)`). */
  create(): Promise<TrainingBackend>;
  /** A `saveState` path for this backend (a directory, or whatever its protocol takes), unique per `name`. */
  statePath(name: string): string;
  /** Stops whatever `create` started (servers). */
  teardown?(): Promise<void>;
}

/** The model every target serves: the tiny test shape with seed 7. */
export const CONFORMANCE_MODEL = TINY;

const TOL = 1e-5;
const close = (a: number, b: number) => Math.abs(a - b) <= TOL * Math.max(1, Math.abs(b));

function expectClose(actual: readonly (number | null)[], expected: readonly (number | null)[], what: string): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  const bad = actual.findIndex((x, i) => (x === null || expected[i] === null ? x !== expected[i] : !close(x, expected[i]!)));
  expect(bad, `${what}: first mismatch at ${bad}: ${actual[bad]} vs ${expected[bad]}`).toBe(-1);
}

const LOSSES: readonly { readonly loss: LossConfig; readonly weight: number }[] = [
  { loss: { kind: 'cross_entropy', aggregation: 'token-mean' }, weight: 1 },
  { loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-mean' }, weight: 0.5 },
  { loss: { kind: 'importance_sampling', aggregation: 'token-sum' }, weight: 1 },
  { loss: { kind: 'cispo', clipHigh: 4, aggregation: 'sequence-mean' }, weight: 0.25 },
];

/** Registers the suite for `target`. */
export function describeBackendConformance(target: ConformanceTarget): void {
  describe(`backend conformance: ${target.name}`, () => {
    const open: TrainingBackend[] = [];
    const make = async () => {
      const b = await target.create();
      open.push(b);
      return b;
    };
    const ref = () => {
      const b = localBackend(CONFORMANCE_MODEL);
      open.push(b);
      return b;
    };
    const tmp = mkdtempSync(join(tmpdir(), 'agentrl-conformance-'));
    afterAll(async () => {
      for (const b of open) await b.close();
      await target.teardown?.();
      rmSync(tmp, { recursive: true, force: true });
    });
    const rnd = lcg(42);
    const batch = [randomDatum(rnd, 24, 6), randomDatum(rnd, 40, 10), randomDatum(rnd, 9, 2)];

    let subject: TrainingBackend;
    beforeAll(async () => {
      subject = await make();
    });

    it('reports the model context', () => {
      expect(subject.maxContextTokens).toBe(CONFORMANCE_MODEL.contextTokens);
    });

    for (const { loss, weight } of LOSSES) {
      it(`same datums give the same loss and logprobs: ${loss.kind} (${loss.aggregation}, weight ${weight})`, async () => {
        const b = await make();
        const r = ref();
        const got = await b.forwardBackward(batch, loss, { weight });
        const want = await r.forwardBackward(batch, loss, { weight });
        expect(close(got.metrics['loss']!, want.metrics['loss']!), `loss ${got.metrics['loss']} vs ${want.metrics['loss']}`).toBe(true);
        got.logprobs.forEach((lp, i) => {
          expectClose(lp, want.logprobs[i]!, `datum ${i} logprobs`);
        });
      });
    }

    it('the same Adam update: logprobs after two steps match', async () => {
      const b = await make();
      const r = ref();
      const loss: LossConfig = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'token-mean' };
      const adam = { learningRate: 3e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 };
      for (let step = 0; step < 2; step++) {
        await b.forwardBackward(batch, loss);
        await r.forwardBackward(batch, loss);
        const gs = await b.optimStep(adam);
        const rs = await r.optimStep(adam);
        expect(close(gs.metrics['grad_norm']!, rs.metrics['grad_norm']!), `grad_norm ${gs.metrics['grad_norm']} vs ${rs.metrics['grad_norm']}`).toBe(true);
      }
      const seq = [...batch[1]!.modelInput, batch[1]!.targetTokens.at(-1)!];
      expectClose(await b.computeLogprobs(seq), await r.computeLogprobs(seq), 'logprobs after the update');
    });

    it('seeded sampling is reproducible and matches the reference weights', async () => {
      const sampler = await subject.saveWeightsForSampler();
      const params = { numSamples: 3, maxTokens: 8, seed: 1234, temperature: 1 };
      const a = await sampler.sample([3, 14, 15, 92], params);
      const b = await sampler.sample([3, 14, 15, 92], params);
      expect(a).toHaveLength(3);
      expect(b).toEqual(a);
      const want = await (await ref().saveWeightsForSampler()).sample([3, 14, 15, 92], params);
      expect(a.map((s) => s.tokens)).toEqual(want.map((s) => s.tokens));
      a.forEach((s, i) => {
        expectClose(s.logprobs, want[i]!.logprobs, `sample ${i} logprobs`);
      });
      expectClose(await sampler.computeLogprobs([3, 14, 15, 92]), await subject.computeLogprobs([3, 14, 15, 92]), 'sampler vs learner logprobs');
    });

    it('saveState / loadState round-trip weights and optimizer state', async () => {
      const b = await make();
      const loss: LossConfig = { kind: 'cross_entropy', aggregation: 'token-mean' };
      const adam = { learningRate: 1e-2 };
      const seq = [...batch[0]!.modelInput, batch[0]!.targetTokens.at(-1)!];
      await b.forwardBackward(batch, loss);
      await b.optimStep(adam);
      const path = target.statePath(join(tmp, 'round-trip'));
      await b.saveState(path);
      const saved = await b.computeLogprobs(seq);
      // Two more steps: the weights move away from the saved ones …
      for (let i = 0; i < 2; i++) {
        await b.forwardBackward(batch, loss);
        await b.optimStep(adam);
      }
      const moved = await b.computeLogprobs(seq);
      expect(moved).not.toEqual(saved);
      // … and come back exactly; the optimizer state too (the next step equals a step from the saved state).
      await b.loadState(path);
      expectClose(await b.computeLogprobs(seq), saved, 'logprobs after loadState');
      const c = await make();
      await c.loadState(path);
      await b.forwardBackward(batch, loss);
      await c.forwardBackward(batch, loss);
      await b.optimStep(adam);
      await c.optimStep(adam);
      expectClose(await c.computeLogprobs(seq), await b.computeLogprobs(seq), 'a step after loadState in another model');
    });

    it('errors are the typed ones, and the backend keeps working after them', async () => {
      const good = batch[2]!;
      const oov = { ...good, targetTokens: good.targetTokens.map(() => LOCAL_VOCAB + 5) };
      await expect(subject.forwardBackward([oov], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
      await expect(subject.forwardBackward([], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
      await expect(subject.forwardBackward([{ ...good, mask: good.mask.slice(1) }], { kind: 'cross_entropy' })).rejects.toBeInstanceOf(BackendInputError);
      const sampler = await subject.saveWeightsForSampler();
      await expect(sampler.sample([1, LOCAL_VOCAB], { maxTokens: 2 })).rejects.toBeInstanceOf(BackendInputError);
      await expect(subject.computeLogprobs([1, LOCAL_VOCAB + 1])).rejects.toBeInstanceOf(BackendInputError);
      const r = await subject.forwardBackward([good], { kind: 'cross_entropy' });
      expect(Number.isFinite(r.metrics['loss'])).toBe(true);
    });
  });
}
