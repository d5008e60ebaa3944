/**
 * Cold-start SFT (ReTool stage 1) for the embedded model on generated, deliberately imperfect
 * demonstrations (see demos.ts). Writes the checkpoint the main job starts from.
 *
 *   node --import tsx examples/retool/sft.ts [--steps 700] [--batch 16] [--lr 1e-3] [--out examples/retool/checkpoints/sft] [--from CHECKPOINT]
 */
import { parseArgs } from '../shared/cli.js';
import { existsSync } from 'node:fs';
import { loadMathDataset, localBackend, trainSupervised } from 'agentrl';
import { MODEL, PATHS } from './config.js';
import { buildDemoDatums, renderOnlyEnv } from './demos.js';
import { prepareData } from './prepare-data.js';

export async function runSft(opts: { steps: number; batch: number; lr: number; out: string; seed: number; saveEvery?: number; from?: string; log?: (s: string) => void }) {
  const log = opts.log ?? console.log;
  if (!existsSync(PATHS.train)) await prepareData({ out: PATHS.data, dev: 64, count: 4000, seed: 1 });
  const train = await loadMathDataset(PATHS.train);
  const backend = localBackend({ ...MODEL, seed: opts.seed, ...(opts.from ? { checkpoint: opts.from } : {}) });
  const renderer = await backend.renderer();
  const { datums, styles } = await buildDemoDatums(renderer, renderOnlyEnv(), train, { seed: opts.seed, maxTokens: MODEL.contextTokens });
  const longest = Math.max(...datums.map((d) => d.modelInput.length));
  log(`sft: ${datums.length} demonstrations (${JSON.stringify(styles)}), longest ${longest} tokens`);
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
      steps: { type: 'string', default: '700' },
      batch: { type: 'string', default: '16' },
      lr: { type: 'string', default: '1e-3' },
      seed: { type: 'string', default: '7' },
      out: { type: 'string', default: PATHS.sftCheckpoint },
      'save-every': { type: 'string', default: '100' },
      from: { type: 'string' },
    },
  });
  await runSft({ steps: Number(values.steps), batch: Number(values.batch), lr: Number(values.lr), out: values.out!, seed: Number(values.seed), saveEvery: Number(values['save-every']), ...(values.from ? { from: values.from } : {}) });
}
