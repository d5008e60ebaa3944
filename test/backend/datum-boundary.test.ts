import { afterAll, describe, expect, it } from 'vitest';
import { BackendInputError, tinkerBackend, type Datum, type LossConfig, type TrainingBackend } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { LOCAL_MODEL_DIR, localRenderer } from '../helpers/local-renderer.js';
import { tinyBackend } from './helpers.js';

const good: Datum = { modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [0, -1, -1, 0], advantages: [0, 0.5, 0.5, 0], mask: [0, 1, 1, 0] };

/** One bad datum per fault kind, several values of each, with the field the error must name. */
const BAD: [string, Datum, string][] = [
  ['fractional mask', { ...good, mask: [0, 0.5, 1, 0] }, 'mask'],
  ['mask above 1', { ...good, mask: [0, 2, 1, 0] }, 'mask'],
  ['negative mask', { ...good, mask: [0, -1, 1, 0] }, 'mask'],
  ['mask NaN', { ...good, mask: [0, NaN, 1, 0] }, 'mask'],
  ['advantage where mask is 0 (prompt)', { ...good, advantages: [1, 0.5, 0.5, 0] }, 'advantages'],
  ['advantage where mask is 0 (observation)', { ...good, advantages: [0, 0.5, 0.5, -1e6] }, 'advantages'],
  ['short mask', { ...good, mask: [0, 1, 1] }, 'mask'],
  ['long advantages', { ...good, advantages: [0, 0.5, 0.5, 0, 0] }, 'advantages'],
  ['NaN logprob', { ...good, logprobs: [0, NaN, -1, 0] }, 'logprobs'],
  ['infinite advantage', { ...good, advantages: [0, Infinity, 0.5, 0] }, 'advantages'],
  ['non-finite weight', { ...good, weights: [0, NaN, 1, 0] }, 'weights'],
  ['short weights', { ...good, weights: [0, 1, 1] }, 'weights'],
  ['fractional token id', { ...good, targetTokens: [2, 3.5, 4, 5] }, 'targetTokens'],
];

const LOSSES: LossConfig[] = [{ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, { kind: 'importance_sampling' }, { kind: 'cross_entropy' }];

// Hazard: DESIGN's mask invariant (mask ∈ {0,1}, advantage 0 where mask is 0) checked by validateDatum but by no
// backend, so a datum that puts a policy gradient on prompt or tool-output tokens trains silently.
describe('every backend checks datums with validateDatum before any work', async () => {
  const renderer = await localRenderer();
  const backends: [string, TrainingBackend][] = [
    ['local', tinyBackend()],
    ['mock', mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => 'x' }) })],
    // Refused before any request: nothing listens on this port.
    ['tinker', tinkerBackend({ baseUrl: 'http://127.0.0.1:9', apiKey: 'tml-test', baseModel: 'fake/model', renderer: LOCAL_MODEL_DIR, maxContextTokens: 512 })],
  ];
  afterAll(async () => {
    for (const [, b] of backends) await b.close();
  });

  describe.each(backends)('%s', (_name, backend) => {
    it.each(BAD)('refuses a %s with BackendInputError naming the field', async (_kind, bad, field) => {
      for (const loss of LOSSES) {
        const err = await backend.forwardBackward([good, bad], loss).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${loss.kind}`).toBeInstanceOf(BackendInputError);
        expect((err as BackendInputError).field).toBe(`datums[1].${field}`);
      }
    });
  });

  it('accepts a valid batch (local and mock)', async () => {
    for (const [, b] of backends.slice(0, 2)) await expect(b.forwardBackward([good, good], LOSSES[0]!)).resolves.toHaveProperty('logprobs');
  });
});
