import { describe, expect, it } from 'vitest';
import { ConfigError } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { minibatchSlices, trainBatch } from '../../src/trainer/minibatch-updates.js';
import type { Datum } from '../../src/types/datum.js';
import { localRenderer } from '../helpers/local-renderer.js';

const datum = (id: number): Datum => ({ modelInput: [1, 2, id], targetTokens: [2, id, 3], logprobs: [0, -1, -1], advantages: [0, 1, 1], mask: [0, 1, 1] });

// Hazard (issue 37 §1; stable-baselines3 #265, trl #998): slices of ceil(D / minibatches) with the empty ones dropped
// gave fewer optimizer steps than configured whenever the minibatch count did not divide the batch.
describe('updatesPerBatch: exactly minibatches × epochs optimizer steps', () => {
  it('trainBatch makes minibatches × epochs optimizer steps for every D, minibatch count and epoch count', async () => {
    const renderer = await localRenderer();
    for (const D of [1, 2, 3, 5, 6, 7, 8, 11, 13]) {
      for (const minibatches of [1, 2, 3, 4, 5, 6, 8, 9]) {
        for (const epochs of [1, 2, 3]) {
          const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }) });
          const datums = Array.from({ length: D }, (_, i) => datum(i + 10));
          const m = await trainBatch(backend, datums, {
            loss: { kind: 'importance_sampling' },
            optimizer: { learningRate: 1e-3 },
            step: 1,
            maxSteps: 1,
            maxTokensPerBatch: 1 << 20,
            maxDatumsPerBatch: 1 << 10,
            minibatches,
            epochs,
          });
          const label = `D=${D} minibatches=${minibatches} epochs=${epochs}`;
          expect(backend.optimSteps.length, label).toBe(minibatches * epochs);
          expect(m['optim/updates'], label).toBe(minibatches * epochs);
          // Every datum is trained on in every epoch.
          const seen = new Set(backend.forwardBackwardCalls.flatMap((c) => c.datums.map((d) => d.modelInput[2])));
          expect(seen.size, label).toBe(D);
        }
      }
    }
  });

  it('slices are contiguous, never empty, sizes differing by at most one; with fewer datums than slices each slice is one datum', () => {
    const ids = (D: number, M: number) =>
      minibatchSlices(
        Array.from({ length: D }, (_, i) => i),
        M,
      );
    expect(ids(6, 4)).toEqual([[0, 1], [2, 3], [4], [5]]);
    expect(ids(7, 6)).toEqual([[0, 1], [2], [3], [4], [5], [6]]);
    expect(ids(10, 3)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
    expect(ids(2, 5)).toEqual([[0], [0], [0], [1], [1]]);
    expect(ids(3, 4)).toEqual([[0], [0], [1], [2]]);
    expect(ids(0, 4)).toEqual([]);
    for (let D = 1; D <= 20; D++) {
      for (let M = 1; M <= 12; M++) {
        const s = ids(D, M);
        expect(s.length).toBe(M);
        expect(s.every((x) => x.length > 0)).toBe(true);
        if (D >= M) {
          expect(s.flat()).toEqual(Array.from({ length: D }, (_, i) => i));
          const sizes = s.map((x) => x.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        } else {
          expect(new Set(s.flat()).size).toBe(D);
        }
      }
    }
    expect(() => minibatchSlices([1], 0)).toThrow(ConfigError);
    expect(() => minibatchSlices([1], 1.5)).toThrow(/minibatches/);
  });

  it('an empty batch makes no optimizer step', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }) });
    const m = await trainBatch(backend, [], {
      loss: { kind: 'importance_sampling' },
      optimizer: { learningRate: 1e-3 },
      step: 1,
      maxSteps: 1,
      maxTokensPerBatch: 1 << 20,
      maxDatumsPerBatch: 1 << 10,
      minibatches: 4,
      epochs: 2,
    });
    expect(backend.optimSteps.length).toBe(0);
    expect(m['optim/updates']).toBeUndefined();
  });
});
