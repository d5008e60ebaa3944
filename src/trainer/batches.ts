import type { Example } from '../types/example.js';

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Endless batches of `size` examples: epochs over `dataset`, each shuffled with a seeded RNG when
 * `shuffle` is set (Fisher–Yates). A batch never repeats an example unless the dataset is smaller than `size`.
 */
export function* batchIterator(dataset: readonly Example[], size: number, opts: { shuffle: boolean; seed: number }): Generator<Example[]> {
  const rng = mulberry32(opts.seed);
  let order: Example[] = [];
  for (;;) {
    const batch: Example[] = [];
    while (batch.length < size) {
      if (order.length === 0) {
        order = [...dataset];
        if (opts.shuffle) {
          for (let i = order.length - 1; i > 0; i--) {
            const j = Math.floor(rng() * (i + 1));
            [order[i], order[j]] = [order[j]!, order[i]!];
          }
        }
      }
      batch.push(order.shift()!);
    }
    yield batch;
  }
}
