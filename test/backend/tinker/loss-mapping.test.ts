import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BackendInputError, ConfigError, referenceLoss, type Aggregation, type Datum, type LossConfig } from 'agentrl/internal';
import { planForwardBackward } from '../../../src/backend/tinker/loss-mapping.js';
import type { WireDatum } from '../../../src/backend/tinker/json-wire.js';

/**
 * What a Tinker-protocol server computes for one request: the built-in per-token losses **summed** over every
 * position of every datum (tinker-cookbook `docs/losses.mdx`), with `r = exp(lp − logprobs)`.
 */
function serverSum(
  lossFn: string,
  cfg: Readonly<Record<string, number>> | undefined,
  datums: readonly WireDatum[],
  lp_D_T: readonly (readonly number[])[],
): number {
  let sum = 0;
  datums.forEach((d, i) => {
    d.modelInput.forEach((_, t) => {
      const lp = lp_D_T[i]![t]!;
      if (lossFn === 'cross_entropy') {
        sum += -lp * d.inputs['weights']!.data[t]!;
        return;
      }
      const a = d.inputs['advantages']!.data[t]!;
      const r = Math.exp(lp - d.inputs['logprobs']!.data[t]!);
      const clip = (x: number) => Math.min(Math.max(x, cfg!['clip_low_threshold']!), cfg!['clip_high_threshold']!);
      if (lossFn === 'importance_sampling') sum += -r * a;
      else if (lossFn === 'ppo') sum += -Math.min(r * a, clip(r) * a);
      else if (lossFn === 'cispo') sum += -clip(r) * lp * a;
      else throw new Error(lossFn);
    });
  });
  return sum;
}

const datumArb = fc.integer({ min: 1, max: 6 }).chain((T) =>
  fc.record({
    T: fc.constant(T),
    logprobs: fc.array(fc.double({ min: -3, max: -0.01, noNaN: true }), { minLength: T, maxLength: T }),
    learner: fc.array(fc.double({ min: -3, max: -0.01, noNaN: true }), { minLength: T, maxLength: T }),
    advantages: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: T, maxLength: T }),
    mask: fc.array(fc.constantFrom(0, 1), { minLength: T, maxLength: T }),
  }),
);

const lossArb: fc.Arbitrary<LossConfig> = fc
  .constantFrom<Aggregation>('token-mean', 'sequence-mean', 'token-sum')
  .chain((aggregation) =>
    fc.constantFrom<LossConfig>(
      { kind: 'cross_entropy', aggregation },
      { kind: 'importance_sampling', aggregation },
      { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28, aggregation },
      { kind: 'cispo', clipHigh: 4, aggregation },
      { kind: 'cispo', clipLow: 0.5, clipHigh: 2, aggregation },
    ),
  );

describe('planForwardBackward: agentrl losses on the protocol’s token-sum losses', () => {
  it('server sum of the mapped request = weight × agentrl reference loss, for every loss kind and aggregation', () => {
    fc.assert(
      fc.property(fc.array(datumArb, { minLength: 1, maxLength: 4 }), lossArb, fc.double({ min: 0, max: 3, noNaN: true }), (rows, loss, weight) => {
        const datums: Datum[] = rows.map((r) => ({
          modelInput: Array.from({ length: r.T }, (_, i) => i),
          targetTokens: Array.from({ length: r.T }, (_, i) => i + 1),
          logprobs: r.logprobs,
          advantages: r.advantages,
          mask: r.mask,
        }));
        const learner = rows.map((r) => r.learner);
        const plan = planForwardBackward(datums, loss, weight, 512);
        const expected = weight * referenceLoss(datums, learner, loss).loss;
        const got = serverSum(plan.lossFn, plan.lossFnConfig, plan.datums, learner);
        expect(got).toBeCloseTo(expected, 4);
      }),
      { numRuns: 300 },
    );
  });

  it('sends ppo/cispo clip bounds as absolute ratio thresholds', () => {
    const d: Datum = { modelInput: [1], targetTokens: [2], logprobs: [-1], advantages: [1], mask: [1] };
    expect(planForwardBackward([d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, 1, 8).lossFnConfig).toEqual({
      clip_low_threshold: 0.8,
      clip_high_threshold: 1.28,
    });
    expect(planForwardBackward([d], { kind: 'cispo', clipHigh: 4 }, 1, 8).lossFnConfig).toEqual({ clip_low_threshold: 0, clip_high_threshold: 4 });
    expect(planForwardBackward([d], { kind: 'importance_sampling' }, 1, 8).lossFnConfig).toBeUndefined();
  });

  it('token-mean folds 1/Σmask into the advantages (Tinker sums), masked positions send 0', () => {
    const d: Datum = { modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [0, -1, -1, 0], advantages: [0, 2, 2, 0], mask: [0, 1, 1, 0] };
    const plan = planForwardBackward([d, d], { kind: 'importance_sampling' }, 0.5, 8);
    expect(plan.datums[0]!.inputs['advantages']!.data).toEqual([0, 0.25, 0.25, 0]);
    const ce = planForwardBackward([d], { kind: 'cross_entropy', aggregation: 'sequence-mean' }, 1, 8);
    expect(ce.datums[0]!.inputs['weights']!.data).toEqual([0, 0.5, 0.5, 0]);
  });

  it('refuses options without an equivalent (ConfigError naming them) and what ppo cannot scale (BackendInputError)', () => {
    const d: Datum = { modelInput: [1], targetTokens: [2], logprobs: [-1], advantages: [1], mask: [1] };
    const err = (() => {
      try {
        planForwardBackward([d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2, dualClip: 3, tau: 1 } as never, 1, 8);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(['loss.dualClip', 'loss.tau']);
    expect(() => planForwardBackward([d], { kind: 'ppo', clipLow: 0.8, clipHigh: 1.2 }, -1, 8)).toThrow(BackendInputError);
    expect(() => planForwardBackward([d], { kind: 'importance_sampling' }, -1, 8)).not.toThrow();
    expect(() => planForwardBackward([d], { kind: 'ppo', clipLow: 1.2, clipHigh: 0.8 }, 1, 8)).toThrow(ConfigError);
    expect(() => planForwardBackward([{ ...d, mask: [1, 1] }], { kind: 'cross_entropy' }, 1, 8)).toThrow(/datums\[0\]\.mask/);
    expect(() =>
      planForwardBackward(
        [{ ...d, modelInput: [1, 2], targetTokens: [1, 2], logprobs: [0, 0], advantages: [0, 0], mask: [1, 1] }],
        { kind: 'cross_entropy' },
        1,
        1,
      ),
    ).toThrow(/context/);
  });
});
