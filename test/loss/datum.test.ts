import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, DatumShapeError, PromptPrefixError } from '../../src/errors/index.js';
import { buildDatum, buildDatums, validateDatum } from '../../src/loss/index.js';
import type { DatumSource, DatumTurn } from '../../src/loss/index.js';
import type { Datum } from '../../src/types/index.js';

/** A random multi-turn trajectory whose prompts extend the previous tokens by random observation deltas. */
const tokenIds = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 500 }), { minLength: min, maxLength: max });
const turnSpec = fc.record({
  delta: tokenIds(0, 6), // observation tokens appended before this turn (ignored for turn 0)
  completion: tokenIds(0, 7),
  logprobSeed: fc.array(fc.double({ min: -8, max: -1e-3, noNaN: true }), { minLength: 7, maxLength: 7 }),
});
const trajectoryArb = fc
  .record({ prompt0: tokenIds(1, 8), turns: fc.array(turnSpec, { minLength: 1, maxLength: 5 }) })
  .map(({ prompt0, turns }) => {
    const full: number[] = [];
    const built: DatumTurn[] = turns.map((t, k) => {
      const promptTokens = k === 0 ? [...prompt0] : [...full, ...t.delta];
      full.length = 0;
      full.push(...promptTokens, ...t.completion);
      return { promptTokens, completionTokens: t.completion, logprobs: t.completion.map((_, i) => t.logprobSeed[i] as number) };
    });
    return { turns: built } satisfies DatumSource;
  })
  .filter((s) => s.turns.at(-1)!.promptTokens.length + s.turns.at(-1)!.completionTokens.length >= 2);
const advantageArb = fc.double({ min: -4, max: 4, noNaN: true }).filter((a) => a !== 0);

const completions = (s: DatumSource) => s.turns.flatMap((t) => [...t.completionTokens]);
const sampledLogprobs = (s: DatumSource) => s.turns.flatMap((t) => [...t.logprobs]);
const masked = <T>(d: Datum, xs: readonly T[]) => xs.filter((_, t) => d.mask[t] === 1);

/** Expected per-position mask computed independently: position t targets token t+1 of the full sequence. */
function expectedMask(s: DatumSource): number[] {
  const origin: number[] = [];
  let len = 0;
  s.turns.forEach((t, k) => {
    const delta = k === 0 ? t.promptTokens.length : t.promptTokens.length - len;
    origin.push(...new Array<number>(delta).fill(0), ...new Array<number>(t.completionTokens.length).fill(1));
    len = t.promptTokens.length + t.completionTokens.length;
  });
  return origin.slice(1);
}

describe('buildDatum', () => {
  it('merges turns by prefix extension and right-shifts (hand example)', () => {
    // prompt0 [1,2] + completion0 [3,4] + observation [5] + completion1 [6]; A = 0.5.
    const d = buildDatum(
      {
        turns: [
          { promptTokens: [1, 2], completionTokens: [3, 4], logprobs: [-0.1, -0.2] },
          { promptTokens: [1, 2, 3, 4, 5], completionTokens: [6], logprobs: [-0.3] },
        ],
      },
      0.5,
    );
    expect(d).toEqual({
      modelInput: [1, 2, 3, 4, 5],
      targetTokens: [2, 3, 4, 5, 6],
      logprobs: [0, -0.1, -0.2, 0, -0.3],
      advantages: [0, 0.5, 0.5, 0, 0.5],
      mask: [0, 1, 1, 0, 1],
    });
  });

  it('keeps trainer token ids equal to sampled ids and masks exactly the sampled positions (property)', () => {
    // Hazard: token-in/token-out — a misaligned shift or a trained observation token corrupts the gradient.
    fc.assert(
      fc.property(trajectoryArb, advantageArb, (s, A) => {
        const d = buildDatum(s, A);
        const T = d.modelInput.length;
        for (const xs of [d.targetTokens, d.logprobs, d.advantages, d.mask]) expect(xs).toHaveLength(T);
        expect(masked(d, d.targetTokens)).toEqual(completions(s));
        expect(d.mask).toEqual(expectedMask(s));
        expect(masked(d, d.logprobs)).toEqual(sampledLogprobs(s));
        d.mask.forEach((m, t) => {
          if (m === 0) {
            expect(d.advantages[t]).toBe(0);
            expect(d.logprobs[t]).toBe(0);
          } else {
            expect(d.advantages[t]).toBe(A);
          }
        });
        // Right shift: input t+1 is target t, and the input starts with the first prompt.
        for (let t = 0; t + 1 < T; t++) expect(d.modelInput[t + 1]).toBe(d.targetTokens[t]);
        expect(d.modelInput[0]).toBe(s.turns[0]!.promptTokens[0]);
        validateDatum(d);
      }),
    );
  });

  it('truncation with maxTokens cuts every array at the same index (property)', () => {
    // Hazard: truncating one array but not the others misaligns logprobs with targets.
    fc.assert(
      fc.property(trajectoryArb, advantageArb, fc.integer({ min: 1, max: 40 }), (s, A, maxTokens) => {
        const full = buildDatum(s, A);
        const cut = buildDatum(s, A, { maxTokens });
        const T = Math.min(maxTokens, full.modelInput.length);
        for (const key of ['modelInput', 'targetTokens', 'logprobs', 'advantages', 'mask'] as const) {
          expect(cut[key]).toEqual(full[key].slice(0, T));
        }
        expect(masked(cut, cut.targetTokens)).toEqual(completions(s).slice(0, masked(cut, cut.targetTokens).length));
      }),
    );
  });

  it('throws PromptPrefixError at the first differing token when a prompt does not extend the history', () => {
    // Hazard: silently training on a sequence the model never saw (e.g. a template that strips thinking).
    const s: DatumSource = {
      turns: [
        { promptTokens: [1, 2], completionTokens: [3, 4], logprobs: [-1, -1] },
        { promptTokens: [1, 2, 9, 4, 5], completionTokens: [6], logprobs: [-1] },
      ],
    };
    expect(() => buildDatum(s, 1)).toThrow(PromptPrefixError);
    try {
      buildDatum(s, 1);
    } catch (e) {
      expect((e as PromptPrefixError).position).toBe(2);
      expect((e as PromptPrefixError).code).toBe('PROMPT_PREFIX_MISMATCH');
    }
    // A next prompt shorter than the history is a mismatch too.
    const shorter: DatumSource = {
      turns: [
        { promptTokens: [1, 2], completionTokens: [3, 4], logprobs: [-1, -1] },
        { promptTokens: [1, 2, 3], completionTokens: [6], logprobs: [-1] },
      ],
    };
    expect(() => buildDatum(shorter, 1)).toThrow(PromptPrefixError);
  });

  it('rejects malformed turns with DatumShapeError naming the field', () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(DatumShapeError);
        return (e as DatumShapeError).field;
      }
      return undefined;
    };
    expect(field(() => buildDatum({ turns: [] }, 1))).toBe('turns');
    expect(field(() => buildDatum({ turns: [{ promptTokens: [1], completionTokens: [2, 3], logprobs: [-1] }] }, 1))).toBe('logprobs');
    expect(field(() => buildDatum({ turns: [{ promptTokens: [], completionTokens: [2, 3], logprobs: [-1, -1] }] }, 1))).toBe('promptTokens');
    expect(field(() => buildDatum({ turns: [{ promptTokens: [1], completionTokens: [], logprobs: [] }] }, 1))).toBe('modelInput');
    expect(field(() => buildDatum({ turns: [{ promptTokens: [1], completionTokens: [2], logprobs: [-1] }] }, Number.NaN))).toBe('advantages');
  });
});

describe('buildDatums', () => {
  const mismatching: DatumSource = {
    turns: [
      { promptTokens: [1, 2], completionTokens: [3, 4], logprobs: [-0.1, -0.2] },
      { promptTokens: [7, 8, 9], completionTokens: [10, 11], logprobs: [-0.3, -0.4] },
      { promptTokens: [7, 8, 9, 10, 11, 12], completionTokens: [13], logprobs: [-0.5] },
    ],
  };

  it("splits the datum when the next prompt does not extend the previous tokens ('split')", () => {
    // Hazard: the cookbook behaviour must keep every sampled token exactly once across the split datums.
    const { datums, trajectoryIndex } = buildDatums([mismatching], [2], { onPrefixMismatch: 'split' });
    expect(datums).toHaveLength(2);
    expect(trajectoryIndex).toEqual([0, 0]);
    expect(datums[0]!.modelInput).toEqual([1, 2, 3]);
    expect(datums[1]!.modelInput).toEqual([7, 8, 9, 10, 11, 12]);
    expect(datums[1]!.mask).toEqual([0, 0, 1, 1, 0, 1]);
    expect(datums.flatMap((d) => masked(d, d.targetTokens))).toEqual([3, 4, 10, 11, 13]);
    datums.forEach((d) => {
      validateDatum(d);
    });
  });

  it("drops a mismatching trajectory by default ('drop'), names it, and keeps the others", () => {
    // Hazard: one vocabulary, one default: buildDatums used to throw by default while the Trainer dropped.
    const ok: DatumSource = { turns: [{ promptTokens: [1], completionTokens: [2], logprobs: [-1] }] };
    for (const opts of [{}, { onPrefixMismatch: 'drop' as const }]) {
      const out = buildDatums([ok, mismatching, ok], [1, 2, -1], opts);
      expect(out.trajectoryIndex).toEqual([0, 2]);
      expect(out.dropped).toEqual([{ trajectoryIndex: 1, message: expect.stringMatching(/turn 1: prompt does not extend the 4 tokens/) }]);
    }
    expect(buildDatums([ok], [1]).dropped).toEqual([]);
    expect(buildDatums([mismatching], [2], { onPrefixMismatch: 'split' }).dropped).toEqual([]);
  });

  it("throws PromptPrefixError with the first differing position under 'fail'", () => {
    expect(() => buildDatums([mismatching], [2], { onPrefixMismatch: 'fail' })).toThrow(PromptPrefixError);
    try {
      buildDatums([mismatching], [2], { onPrefixMismatch: 'fail' });
    } catch (e) {
      expect(e).toMatchObject({ code: 'PROMPT_PREFIX_MISMATCH', position: 0 });
    }
  });

  it("refuses an unknown policy with ConfigError, and says that 'throw' is now 'fail'", () => {
    for (const bad of ['throw', 'skip', 1]) {
      expect(() => buildDatums([mismatching], [2], { onPrefixMismatch: bad as never })).toThrow(ConfigError);
    }
    expect(() => buildDatums([mismatching], [2], { onPrefixMismatch: 'throw' as never })).toThrow(/'throw' is now 'fail'/);
  });

  it('maps datums to their trajectories, skips zero advantages on request, and checks lengths', () => {
    const ok: DatumSource = { turns: [{ promptTokens: [1], completionTokens: [2], logprobs: [-1] }] };
    expect(buildDatums([ok, ok, ok], [1, 0, -1]).trajectoryIndex).toEqual([0, 1, 2]);
    expect(buildDatums([ok, ok, ok], [1, 0, -1], { skipZeroAdvantage: true }).trajectoryIndex).toEqual([0, 2]);
    expect(() => buildDatums([ok, ok], [1])).toThrow(DatumShapeError);
  });

  it('split datums over random trajectories keep all sampled tokens in order (property)', () => {
    fc.assert(
      fc.property(fc.array(trajectoryArb, { minLength: 1, maxLength: 4 }), advantageArb, (trajs, A) => {
        const { datums, trajectoryIndex } = buildDatums(
          trajs,
          trajs.map(() => A),
          { onPrefixMismatch: 'split' },
        );
        expect(datums).toHaveLength(trajs.length); // prefix-extending trajectories never split
        datums.forEach((d, i) => {
          expect(masked(d, d.targetTokens)).toEqual(completions(trajs[trajectoryIndex[i]!]!));
          validateDatum(d);
        });
      }),
    );
  });

  it('splitting at random broken prefixes keeps every sampled token exactly once, in order (property)', () => {
    // Hazard: a split must neither drop nor duplicate sampled tokens, and each piece must stay well-formed.
    const broken = fc.tuple(trajectoryArb, fc.array(fc.tuple(fc.boolean(), tokenIds(1, 5)), { minLength: 5, maxLength: 5 })).map(([s, resets]) => ({
      turns: s.turns.map((t, k) => (k > 0 && resets[k]![0] ? { ...t, promptTokens: resets[k]![1] } : t)),
    }));
    fc.assert(
      fc.property(broken, advantageArb, (s, A) => {
        const { datums } = buildDatums([s], [A], { onPrefixMismatch: 'split' });
        expect(datums.flatMap((d) => masked(d, d.targetTokens))).toEqual(completions(s));
        expect(datums.flatMap((d) => masked(d, d.logprobs))).toEqual(sampledLogprobs(s));
        datums.forEach((d) => {
          validateDatum(d);
        });
      }),
    );
  });
});
