import { ConfigError } from '../errors/index.js';
import type { ConfigIssue } from '../errors/index.js';
import type { Datum } from '../types/datum.js';
import type { MicroBatch, PackOptions } from './types.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const PACK_OPTIONS = optionKeys<PackOptions>({ maxTokensPerBatch: true, maxDatumsPerBatch: true, budget: true });

function checkPackOptions(opts: PackOptions): void {
  const issues: ConfigIssue[] = [];
  const { maxTokensPerBatch, maxDatumsPerBatch, budget } = opts;
  if (!(Number.isInteger(maxTokensPerBatch) && maxTokensPerBatch >= 1)) {
    issues.push({ path: 'maxTokensPerBatch', message: `expected an integer ≥ 1, got ${maxTokensPerBatch}` });
  }
  if (maxDatumsPerBatch !== undefined && !(Number.isInteger(maxDatumsPerBatch) && maxDatumsPerBatch >= 1)) {
    issues.push({ path: 'maxDatumsPerBatch', message: `expected an integer ≥ 1, got ${maxDatumsPerBatch}` });
  }
  if (budget !== undefined && budget !== 'padded' && budget !== 'sum') {
    issues.push({ path: 'budget', message: `expected 'padded' | 'sum', got ${JSON.stringify(budget)}` });
  }
  if (issues.length > 0) throw new ConfigError('micro-batch options', issues);
}

interface OpenBatch {
  readonly indices: number[];
  longest: number;
  sum: number;
}

/**
 * Packs datums into micro-batches, greedily by length (first-fit decreasing): datums are taken longest first
 * (ties by index) and each goes into the first micro-batch where it still fits the token and datum limits,
 * else into a new one. Every datum appears in exactly one micro-batch; none is split or dropped — a datum
 * that alone exceeds `maxTokensPerBatch` gets a micro-batch of its own. Deterministic.
 * KMnO4-zx/agentic-rl-lab `05-retool/train.py` `pack_micro_batches` (≤ 32 datums, ≤ 64k padded tokens).
 *
 * @typeParam D - anything with a `modelInput` (its length is the datum's token count).
 * @param datums_D - the batch.
 * @param opts - see {@link PackOptions}.
 * @returns micro-batches in creation order, each with the input `indices` of its datums.
 * @throws ConfigError when a limit is not an integer ≥ 1 or `budget` is unknown.
 */
export function packMicroBatches<D extends Pick<Datum, 'modelInput'>>(datums_D: readonly D[], opts: PackOptions): MicroBatch<D>[] {
  checkOptions('packMicroBatches options', PACK_OPTIONS, opts);
  checkPackOptions(opts);
  const maxDatums = opts.maxDatumsPerBatch ?? Number.POSITIVE_INFINITY;
  const padded = (opts.budget ?? 'padded') === 'padded';
  const cost = (count: number, longest: number, sum: number): number => (padded ? longest * count : sum);
  const order = datums_D.map((d, i) => ({ i, len: d.modelInput.length }));
  order.sort((a, b) => b.len - a.len || a.i - b.i);
  const open: OpenBatch[] = [];
  for (const { i, len } of order) {
    const fits = (b: OpenBatch): boolean =>
      b.indices.length < maxDatums && cost(b.indices.length + 1, Math.max(b.longest, len), b.sum + len) <= opts.maxTokensPerBatch;
    const target = open.find(fits);
    if (target) {
      target.indices.push(i);
      target.longest = Math.max(target.longest, len);
      target.sum += len;
    } else {
      open.push({ indices: [i], longest: len, sum: len });
    }
  }
  return open.map((b) => ({
    indices: b.indices,
    datums: b.indices.map((i) => datums_D[i] as D),
    tokens: cost(b.indices.length, b.longest, b.sum),
  }));
}

/**
 * Weight of micro-batch k when a backend averages the loss over the datums of each request (PyTRIO):
 * `n_k / N`, so that `Σ_k (n_k/N)·mean(L_k) = mean(L_global)` (agentic-rl-lab `05-retool/train.py`,
 * `weight_micro_batch_for_global_mean`). Used by `microBatchLossWeight` (`micro-batch-weight.ts`) for `sequence-mean`.
 * @param n_k - number of samples in micro-batch k (integer, 0 ≤ n_k ≤ N).
 * @param N - number of samples in the whole step (integer ≥ 1).
 * @throws ConfigError on out-of-range arguments.
 */
export function microBatchWeight(n_k: number, N: number): number {
  const issues: ConfigIssue[] = [];
  if (!(Number.isInteger(N) && N >= 1)) issues.push({ path: 'N', message: `expected an integer ≥ 1, got ${N}` });
  if (!(Number.isInteger(n_k) && n_k >= 0 && n_k <= N)) {
    issues.push({ path: 'n_k', message: `expected an integer in [0, N], got ${n_k}` });
  }
  if (issues.length > 0) throw new ConfigError('microBatchWeight arguments', issues);
  return n_k / N;
}
