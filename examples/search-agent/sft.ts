/**
 * Cold-start SFT for the search agent on the embedded model: length-bucketed cross-entropy on the imperfect
 * demonstrations of demos.ts. Writes the checkpoint `npm run search-agent` starts from.
 *
 *   node --import tsx examples/search-agent/sft.ts [--steps 500] [--batch 16] [--lr 1e-3] [--init DIR] [--out examples/search-agent/checkpoints/sft]
 */
import { parseArgs } from '../shared/cli.js';
import { loadMathDataset, trainSupervised } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS } from './config.js';
import { buildDemoDatums } from './demos.js';
import { makeRetriever, searchEnv } from './env.js';

/** Options of {@link runSft}. */
export interface SftOptions {
  readonly steps: number;
  readonly batch: number;
  /** Peak learning rate (30-step warm-up, cosine decay to 10%). */
  readonly lr: number;
  readonly out: string;
  readonly seed: number;
  /** Passes of demonstrations drawn over the training questions. @default 4 */
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
  const env = searchEnv(await makeRetriever());
  const { datums, styles, dropped } = await buildDemoDatums(renderer, env, train, {
    seed: opts.seed,
    epochs: opts.epochs ?? 4,
    maxToolResponseTokens: BUDGETS.maxToolResponseTokens,
    maxTokens: MODEL.contextTokens,
  });
  await env.close?.();
  log(`sft: ${datums.length} demonstrations (${JSON.stringify(styles)}; ${dropped} over the context left out), longest ${Math.max(...datums.map((d) => d.modelInput.length))} tokens`);
  await trainSupervised(backend, datums, {
    steps: opts.steps,
    batchSize: opts.batch,
    learningRate: opts.lr,
    seed: opts.seed,
    savePath: opts.out,
    ...(opts.saveEvery ? { saveEvery: opts.saveEvery } : {}),
    onStep: (e) => {
      if (e.step % 25 === 0 || e.step === 1) log(`sft step ${e.step}/${opts.steps} loss ${e.loss.toFixed(4)} (${e.elapsedS.toFixed(0)}s)`);
    },
  });
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
      epochs: { type: 'string', default: '4' },
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
