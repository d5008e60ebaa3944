/**
 * Cold-start SFT for the SQL agent on the embedded model: length-bucketed cross-entropy on the imperfect
 * demonstrations of demos.ts. Writes the checkpoint `npm run sql-agent` starts from.
 *
 *   node --import tsx examples/sql-agent/sft.ts [--steps 500] [--batch 16] [--lr 1e-3] [--init DIR] [--out examples/sql-agent/checkpoints/sft]
 */
import { parseArgs } from 'node:util';
import { loadMathDataset, mulberry32, type Datum } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS } from './config.js';
import { buildDemoDatums } from './demos.js';
import { closeSql, loadDatabase, sqlEnv } from './env.js';

/** Batches of similar length (less padding, fewer compiled shapes), in a seeded random order. */
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

/** Options of {@link runSft}. */
export interface SftOptions {
  readonly steps: number;
  readonly batch: number;
  /** Peak learning rate (30-step warm-up, cosine decay to 10%). */
  readonly lr: number;
  readonly out: string;
  readonly seed: number;
  /** Passes of demonstrations drawn over the training questions. @default 2 */
  readonly epochs?: number;
  readonly saveEvery?: number;
  /** Continue from this checkpoint (weights + optimizer state) instead of fresh weights. */
  readonly init?: string;
  readonly log?: (s: string) => void;
}

/** Runs cold-start SFT (from fresh weights, or from `opts.init`) and saves the result to `opts.out` (`saveState`). */
export async function runSft(opts: SftOptions): Promise<void> {
  const log = opts.log ?? console.log;
  const train = await loadMathDataset(PATHS.train);
  const backend = makeBackend(opts.init !== undefined ? { checkpoint: opts.init } : { seed: opts.seed });
  const renderer = await backend.renderer();
  const env = sqlEnv(loadDatabase());
  const { datums, styles, dropped } = await buildDemoDatums(renderer, env, train, {
    seed: opts.seed,
    epochs: opts.epochs ?? 2,
    maxToolResponseTokens: BUDGETS.maxToolResponseTokens,
    maxTokens: MODEL.contextTokens,
  });
  await closeSql(env);
  log(`sft: ${datums.length} demonstrations (${JSON.stringify(styles)}; ${dropped} over the context left out), longest ${Math.max(...datums.map((d) => d.modelInput.length))} tokens`);
  const batches = lengthBucketedBatches(datums, opts.batch, opts.seed);
  const t0 = performance.now();
  for (let step = 1; step <= opts.steps; step++) {
    const batch = batches[(step - 1) % batches.length]!;
    const warm = Math.min(1, step / 30);
    const decay = 0.1 + 0.9 * 0.5 * (1 + Math.cos((Math.PI * step) / opts.steps));
    const fb = await backend.forwardBackward(batch, { kind: 'cross_entropy' });
    await backend.optimStep({ learningRate: opts.lr * warm * decay, beta2: 0.99, gradClipNorm: 1 });
    if (opts.saveEvery && step % opts.saveEvery === 0 && step < opts.steps) await backend.saveState(opts.out);
    if (step % 25 === 0 || step === 1) log(`sft step ${step}/${opts.steps} loss ${fb.metrics['loss']?.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)}s)`);
  }
  await backend.saveState(opts.out);
  log(`sft: saved ${opts.out}`);
  await backend.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '500' },
      batch: { type: 'string', default: '16' },
      lr: { type: 'string', default: '1e-3' },
      seed: { type: 'string', default: '7' },
      epochs: { type: 'string', default: '2' },
      out: { type: 'string', default: PATHS.sftCheckpoint },
      'save-every': { type: 'string', default: '100' },
      init: { type: 'string' },
    },
  });
  await runSft({
    steps: Number(values.steps),
    batch: Number(values.batch),
    lr: Number(values.lr),
    out: values.out!,
    seed: Number(values.seed),
    epochs: Number(values.epochs),
    saveEvery: Number(values['save-every']),
    ...(values.init !== undefined ? { init: values.init } : {}),
  });
}
