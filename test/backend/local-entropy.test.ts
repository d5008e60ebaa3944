import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureJax, np } from '../../src/backend/local/jax.js';
import { entropyOfLogprobs } from '../../src/backend/local/model.js';
import { trainOnDatums } from '../../src/trainer/train-on-datums.js';
import type { LossConfig } from '../../src/types/loss-config.js';
import type { Datum } from '../../src/types/datum.js';
import { LOCAL_VOCAB, lcg, randomDatum, tinyBackend } from './helpers.js';

const H = (p: readonly number[]) => -p.reduce((s, x) => s + (x > 0 ? x * Math.log(x) : 0), 0);

describe('full-vocabulary entropy', () => {
  beforeAll(() => ensureJax());

  it('entropyOfLogprobs of known distributions (−Σ p log p, nats)', () => {
    const rows = [
      [0.25, 0.25, 0.25, 0.25], // uniform: ln 4
      [0.5, 0.5, 0, 0], // two-point: ln 2 (zero-probability tokens contribute 0)
      [0.1, 0.2, 0.3, 0.4],
      [0.97, 0.01, 0.01, 0.01],
    ];
    const logp = np.array(Float32Array.from(rows.flat().map((p) => (p > 0 ? Math.log(p) : -1e9)))).reshape([rows.length, 4]);
    const got = Array.from(entropyOfLogprobs(logp).dataSync() as Float32Array);
    expect(got[0]).toBeCloseTo(Math.log(4), 5);
    expect(got[1]).toBeCloseTo(Math.log(2), 5);
    expect(got[2]).toBeCloseTo(1.2798542258336676, 5); // hand-computed −Σ p ln p of (0.1, 0.2, 0.3, 0.4)
    rows.forEach((r, i) => {
      expect(got[i]).toBeCloseTo(H(r), 5);
    });
  });

  describe('the engine reports it from the learner', () => {
    const backend = tinyBackend();
    afterAll(() => backend.close());
    const rnd = lcg(5);
    const datums: Datum[] = [randomDatum(rnd, 30, 8), randomDatum(rnd, 12, 3)];
    const ppo: LossConfig = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 };

    it('is ln V at a temperature so high that the softmax is uniform, and lies in (0, ln V] at T = 1', async () => {
      const hot = await backend.forwardBackward(datums, ppo, { weight: 0, sampling: { temperature: 1e6 } });
      expect(hot.metrics['entropy']).toBeCloseTo(Math.log(LOCAL_VOCAB), 3);
      const cold = await backend.forwardBackward(datums, ppo, { weight: 0 });
      expect(cold.metrics['entropy']).toBeGreaterThan(0);
      expect(cold.metrics['entropy']).toBeLessThan(Math.log(LOCAL_VOCAB));
      // Sharper softmax, lower entropy.
      const sharp = await backend.forwardBackward(datums, ppo, { weight: 0, sampling: { temperature: 0.25 } });
      expect(sharp.metrics['entropy']).toBeLessThan(cold.metrics['entropy']!);
    });

    it('averages over masked tokens only, and the custom-loss path reports the same value', async () => {
      const base = await backend.forwardBackward(datums, ppo, { weight: 0 });
      // Other targets at masked-out positions change nothing (the entropy does not depend on the target anyway);
      // masking out a whole datum changes the mean to the other datum's.
      const onlyFirst = await backend.forwardBackward(
        [datums[0]!, { ...datums[1]!, mask: datums[1]!.mask.map(() => 0), advantages: datums[1]!.advantages.map(() => 0) }],
        ppo,
        { weight: 0 },
      );
      const first = await backend.forwardBackward([datums[0]!], ppo, { weight: 0 });
      expect(onlyFirst.metrics['entropy']).toBeCloseTo(first.metrics['entropy']!, 5);
      expect(onlyFirst.metrics['entropy']).not.toBeCloseTo(base.metrics['entropy']!, 5);
      const gspo = await backend.forwardBackward(datums, { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 }, { weight: 0 });
      expect(gspo.metrics['entropy']).toBeCloseTo(base.metrics['entropy']!, 5);
    });

    it('the entropy bonus enters the loss as −β·agg(H) and is refused on a custom-loss kind', async () => {
      const is: LossConfig = { kind: 'importance_sampling', aggregation: 'token-mean' };
      const zeroAdv = datums.map((d) => ({ ...d, advantages: d.advantages.map(() => 0) }));
      const r = await backend.forwardBackward(zeroAdv, is, { weight: 1, entropyCoef: 0.5 });
      // With A = 0 the policy loss is 0; token-mean aggregation makes the bonus −β·mean_masked(H).
      expect(r.metrics['loss']).toBeCloseTo(-0.5 * r.metrics['entropy']!, 4);
      await backend.optimStep({ learningRate: 0 });
      await expect(backend.forwardBackward(datums, { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 }, { entropyCoef: 0.1 })).rejects.toThrow(
        /entropyCoef.*custom loss/,
      );
      await expect(backend.forwardBackward(datums, ppo, { entropyCoef: -1 })).rejects.toThrow(/entropyCoef/);
    });
  });

  it('in a tiny run the bonus keeps the entropy higher than the same run without it', async () => {
    // The advantages reward the sampled targets (a sharpening force); the bonus pushes the entropy up against it.
    const run = async (entropyCoef: number, loss: LossConfig) => {
      const b = tinyBackend({ seed: 11 });
      const rnd = lcg(3);
      const ds = [randomDatum(rnd, 40, 10), randomDatum(rnd, 40, 10), randomDatum(rnd, 24, 4)].map((d) => ({
        ...d,
        advantages: d.mask.map((m) => (m ? 1 : 0)),
      }));
      // A few supervised steps first move the policy away from the near-uniform initialisation (where H ≈ ln V is at its
      // maximum and the entropy's gradient vanishes).
      for (let k = 0; k < 8; k++)
        await trainOnDatums(b, ds, { loss: { kind: 'cross_entropy' }, optimizer: { learningRate: 3e-2 }, maxTokensPerBatch: 4096, maxDatumsPerBatch: 4 });
      const trace: number[] = [];
      for (let k = 0; k < 5; k++) {
        const m = await trainOnDatums(b, ds, {
          loss,
          optimizer: { learningRate: 3e-3 },
          maxTokensPerBatch: 4096,
          maxDatumsPerBatch: 2,
          ...(entropyCoef > 0 ? { entropyCoef } : {}),
        });
        trace.push(m['optim/entropy']!);
        expect(m['optim/entropy_sampled']).toEqual(expect.any(Number));
      }
      await b.close();
      return trace;
    };
    for (const loss of [{ kind: 'importance_sampling' }, { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation: 'sequence-mean' }] as LossConfig[]) {
      const without = await run(0, loss);
      const withBonus = await run(4, loss);
      expect(without[0]).toBeCloseTo(withBonus[0]!, 5); // same start (the metric is measured before each update)
      // The gap opens step after step (Adam's momentum from the supervised steps keeps both falling at first).
      const gap = withBonus.map((h, k) => h - without[k]!);
      for (let k = 1; k < gap.length; k++) expect(gap[k]!, `step ${k}`).toBeGreaterThan(gap[k - 1]!);
      expect(gap.at(-1)!).toBeGreaterThan(0.01); // nats; deterministic (seeded), the run measured 0.0186 (IS) after 4 updates
    }
  });
});
