import type { Example } from '../types/example.js';
import { mulberry32 } from '../util/rng.js';

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
