import { describe, expect, it } from 'vitest';
import { lengthBucketedBatches, supervisedDatum, trainSupervised } from 'agentrl/internal';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const datum = (n: number) =>
  supervisedDatum({ tokens: Array.from({ length: n }, (_, i) => i % 200), mask: Array.from({ length: n }, (_, i) => (i > 1 ? 1 : 0)) });

describe('trainSupervised', () => {
  it('batches by length, keeps every datum once, in a seeded order', () => {
    const ds = [40, 5, 30, 6, 41, 7, 29].map(datum);
    const b = lengthBucketedBatches(ds, 3, 1);
    expect(b.flat()).toHaveLength(ds.length);
    expect(new Set(b.flat())).toEqual(new Set(ds));
    for (const batch of b) {
      const lens = batch.map((d) => d.modelInput.length);
      expect(Math.max(...lens) - Math.min(...lens)).toBeLessThanOrEqual(11);
    }
    expect(lengthBucketedBatches(ds, 3, 1)).toEqual(b);
  });

  it('warms up linearly, decays by a cosine to the floor, saves periodically and at the end', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '' }) });
    const steps: number[] = [];
    await trainSupervised(backend, [10, 12, 14, 16].map(datum), {
      steps: 8,
      batchSize: 2,
      learningRate: 1,
      warmupSteps: 4,
      seed: 0,
      saveEvery: 4,
      savePath: '/tmp/x',
      onStep: (e) => steps.push(e.step),
    });
    const lrs = backend.optimSteps.map((p) => p.learningRate);
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(lrs[0]).toBeLessThan(lrs[3]!); // warm-up
    expect(lrs[7]).toBeCloseTo(0.1, 10); // cosine floor at the last step
    expect(backend.forwardBackwardCalls.every((c) => c.loss.kind === 'cross_entropy' && c.datums.length === 2)).toBe(true);
    expect(backend.savedStates).toEqual(['/tmp/x', '/tmp/x']);
  });
});
