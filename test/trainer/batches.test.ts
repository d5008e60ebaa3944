import { describe, expect, it } from 'vitest';
import { batchIterator } from '../../src/trainer/example-order.js';
import type { Example } from '../../src/types/example.js';

const data = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `e${i}`, question: 'q', answer: '1' }));

describe('batchIterator', () => {
  it('never repeats an example inside a batch, also across epoch boundaries, and covers every epoch', () => {
    // Hazard: a batch taking the end of one shuffled epoch and the start of the next got the same example twice
    // (two live rollouts with the same trajectory ids), against the documented promise.
    for (const [n, size] of [
      [3, 2],
      [5, 3],
      [7, 4],
      [4, 4],
    ] as const) {
      for (let seed = 0; seed < 40; seed++) {
        const batches = batchIterator(data(n), size, { shuffle: true, seed });
        const seen: string[] = [];
        for (let b = 0; b < 12; b++) {
          const batch = (batches.next().value as Example[]).map((e) => e.id);
          expect(new Set(batch).size, `n=${n} size=${size} seed=${seed} batch ${b}`).toBe(size);
          seen.push(...batch);
        }
        // Each full epoch (n consecutive draws) holds every example once.
        for (let e = 0; e + n <= seen.length; e += n) expect(new Set(seen.slice(e, e + n)).size).toBe(n);
      }
    }
  });

  it('repeats inside a batch only when the dataset is smaller than the batch', () => {
    const batch = batchIterator(data(2), 5, { shuffle: false, seed: 0 }).next().value as Example[];
    expect(batch.map((e) => e.id)).toEqual(['e0', 'e1', 'e0', 'e1', 'e0']);
  });
});
