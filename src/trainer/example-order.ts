import type { Example } from '../types/example.js';
import { mulberry32 } from '../util/rng.js';

/**
 * Endless batches of `size` examples: epochs over `dataset`, each shuffled with a seeded RNG when
 * `shuffle` is set (Fisher–Yates). Every epoch yields each example exactly once, and a batch never holds the same
 * example twice unless the dataset is smaller than `size` — also across an epoch boundary: when a batch takes the
 * end of one epoch and the start of the next, the next epoch's examples already in that batch are moved to the back
 * of the new epoch's order.
 */
export function* batchIterator(dataset: readonly Example[], size: number, opts: { shuffle: boolean; seed: number }): Generator<Example[]> {
  const rng = mulberry32(opts.seed);
  let order: Example[] = [];
  for (;;) {
    const batch: Example[] = [];
    while (batch.length < size) {
      if (order.length === 0) order = nextEpoch(dataset, opts.shuffle, rng, dataset.length >= size ? batch : []);
      batch.push(order.shift()!);
    }
    yield batch;
  }
}

/** One epoch's order; examples in `inBatch` (by identity) go last, in their shuffled order. */
function nextEpoch(dataset: readonly Example[], shuffle: boolean, rng: () => number, inBatch: readonly Example[]): Example[] {
  const order = [...dataset];
  if (shuffle) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
  }
  if (inBatch.length === 0) return order;
  const taken = new Set(inBatch);
  return [...order.filter((e) => !taken.has(e)), ...order.filter((e) => taken.has(e))];
}

/**
 * Endless examples in data order: {@link batchIterator}'s batches of `size`, flattened, advanced past the first
 * `startAt` (a resumed run's data position). A streaming run takes one example per group from it.
 */
export function exampleStream(dataset: readonly Example[], size: number, opts: { shuffle: boolean; seed: number }, startAt: number): Iterator<Example> {
  const flat = (function* () {
    for (const batch of batchIterator(dataset, size, opts)) yield* batch;
  })();
  for (let i = 0; i < startAt; i++) flat.next();
  return flat;
}
