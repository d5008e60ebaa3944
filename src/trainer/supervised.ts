import type { AdamParams, TrainingBackend } from '../backend/types.js';
import type { Datum } from '../types/datum.js';
import { mulberry32 } from '../util/rng.js';
import { checkOptions, optionKeys, type OptionKeys } from '../util/check-options.js';

/** The option keys of {@link trainSupervised} (also those of `coldStart`, whose options extend them). */
export const SUPERVISED_OPTION_KEYS: OptionKeys<SupervisedTrainOptions> = {
  steps: true,
  batchSize: true,
  learningRate: true,
  warmupSteps: true,
  minLearningRateRatio: true,
  adam: true,
  seed: true,
  saveEvery: true,
  savePath: true,
  lengthBuckets: true,
  onStep: true,
};
const SUPERVISED_OPTIONS = optionKeys<SupervisedTrainOptions>(SUPERVISED_OPTION_KEYS);

/**
 * Splits datums into batches of similar length (less padding, fewer distinct batch shapes for a jit engine),
 * in a seeded random order.
 * @param size - datums per batch (the last batch may be smaller).
 */
export function lengthBucketedBatches(datums: readonly Datum[], size: number, seed: number): Datum[][] {
  const sorted = [...datums].sort((a, b) => a.modelInput.length - b.modelInput.length);
  const batches: Datum[][] = [];
  for (let i = 0; i < sorted.length; i += size) batches.push(sorted.slice(i, i + size));
  const r = mulberry32(seed);
  for (let i = batches.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [batches[i], batches[j]] = [batches[j]!, batches[i]!];
  }
  return batches;
}

/** Splits datums into batches in a seeded random order (lengths mixed). */
function shuffledBatches(datums: readonly Datum[], size: number, seed: number): Datum[][] {
  const order = [...datums];
  const r = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const batches: Datum[][] = [];
  for (let i = 0; i < order.length; i += size) batches.push(order.slice(i, i + size));
  return batches;
}

/** Options of {@link trainSupervised}. */
export interface SupervisedTrainOptions {
  /** Optimizer steps (one batch each; batches cycle when the data runs out). */
  readonly steps: number;
  /** Datums per step. */
  readonly batchSize: number;
  /** Peak learning rate, reached after `warmupSteps` and decayed by a cosine to `minLearningRateRatio × peak`. */
  readonly learningRate: number;
  /** Linear warm-up length in steps. @default 30 */
  readonly warmupSteps?: number;
  /** Floor of the cosine decay as a fraction of the peak. @default 0.1 */
  readonly minLearningRateRatio?: number;
  /** Other Adam settings. @default `{ beta2: 0.99, gradClipNorm: 1 }` */
  readonly adam?: Omit<AdamParams, 'learningRate'>;
  /** Seed of the batch order. */
  readonly seed: number;
  /** Save the state to `savePath` every this many steps (and at the end when `savePath` is set). 0 = only at the end. */
  readonly saveEvery?: number;
  /** Directory the learner state is saved to (see `saveEvery`); when absent nothing is saved. */
  readonly savePath?: string;
  /**
   * Group datums of similar length into a batch (less padding, fewer compiled shapes). Turn it off when lengths
   * separate kinds of demonstration (e.g. short direct answers vs long tool calls): length-bucketed batches would
   * then each hold one kind, and the last few batches would tilt the model towards theirs. @default true
   */
  readonly lengthBuckets?: boolean;
  /** Called after every step with its cross-entropy loss (token-mean over the batch) and the elapsed time in s. */
  readonly onStep?: (e: { step: number; loss: number; elapsedS: number }) => void;
}

/**
 * Supervised fine-tuning (e.g. a cold-start SFT on demonstrations): `cross_entropy` on length-bucketed batches,
 * linear warm-up then cosine decay, one `optimStep` per batch. The datums carry their own weights/mask
 * (`supervisedDatum`): only demonstrated assistant tokens are learned.
 * @returns the loss of the last step.
 */
export async function trainSupervised(backend: TrainingBackend, datums: readonly Datum[], opts: SupervisedTrainOptions): Promise<{ lastLoss: number }> {
  checkOptions('trainSupervised options', SUPERVISED_OPTIONS, opts, { signature: 'trainSupervised(backend, datums, { steps, batchSize, learningRate, … })' });
  const batches = opts.lengthBuckets === false ? shuffledBatches(datums, opts.batchSize, opts.seed) : lengthBucketedBatches(datums, opts.batchSize, opts.seed);
  const warmup = opts.warmupSteps ?? 30;
  const floor = opts.minLearningRateRatio ?? 0.1;
  const adam = opts.adam ?? { beta2: 0.99, gradClipNorm: 1 };
  const t0 = performance.now();
  let lastLoss = Number.NaN;
  for (let step = 1; step <= opts.steps; step++) {
    const warm = Math.min(1, step / Math.max(1, warmup));
    const decay = floor + (1 - floor) * 0.5 * (1 + Math.cos((Math.PI * step) / opts.steps));
    const fb = await backend.forwardBackward(batches[(step - 1) % batches.length]!, { kind: 'cross_entropy' });
    await backend.optimStep({ ...adam, learningRate: opts.learningRate * warm * decay });
    lastLoss = fb.metrics['loss'] ?? Number.NaN;
    if (opts.savePath && opts.saveEvery && step % opts.saveEvery === 0 && step < opts.steps) await backend.saveState(opts.savePath);
    opts.onStep?.({ step, loss: lastLoss, elapsedS: (performance.now() - t0) / 1000 });
  }
  if (opts.savePath) await backend.saveState(opts.savePath);
  return { lastLoss };
}
