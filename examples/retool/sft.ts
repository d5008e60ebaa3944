/**
 * Cold-start SFT (ReTool stage 1) for the embedded model on generated, deliberately imperfect
 * demonstrations (see demos.ts). Writes the checkpoint the main job starts from.
 *
 *   node --import tsx examples/retool/sft.ts [--steps 600] [--batch 16] [--lr 1e-3] [--out examples/retool/checkpoints/sft]
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadMathDataset, localBackend } from 'agentrl';
import { MODEL, PATHS } from './config.js';
import { buildDemoDatums } from './demos.js';
import { toolEnv } from './env.js';
import { prepareData } from './prepare-data.js';

export async function runSft(opts: { steps: number; batch: number; lr: number; out: string; seed: number; log?: (s: string) => void }) {
  const log = opts.log ?? console.log;
  if (!existsSync(PATHS.train)) await prepareData({ out: PATHS.data, dev: 64, count: 4000, seed: 1 });
  const train = await loadMathDataset(PATHS.train);
  const backend = localBackend({ ...MODEL, seed: opts.seed });
  const renderer = await backend.renderer();
  const env = toolEnv(1);
  const { datums, styles } = buildDemoDatums(renderer, env, train, opts.seed);
  await env.close?.();
  const longest = Math.max(...datums.map((d) => d.modelInput.length));
  log(`sft: ${datums.length} demonstrations (${JSON.stringify(styles)}), longest ${longest} tokens`);
  const t0 = performance.now();
  for (let step = 1; step <= opts.steps; step++) {
    const start = ((step - 1) * opts.batch) % datums.length;
    const batch = datums.slice(start, start + opts.batch);
    const warm = Math.min(1, step / 30);
    const decay = 0.1 + 0.9 * 0.5 * (1 + Math.cos((Math.PI * step) / opts.steps));
    const fb = await backend.forwardBackward(batch, { kind: 'cross_entropy' });
    await backend.optimStep({ learningRate: opts.lr * warm * decay, beta2: 0.99, gradClipNorm: 1 });
    if (step % 25 === 0 || step === 1) log(`sft step ${step}/${opts.steps} loss ${fb.metrics['loss']?.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)}s)`);
  }
  await backend.saveState(opts.out);
  log(`sft: saved ${opts.out}`);
  await backend.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '600' },
      batch: { type: 'string', default: '16' },
      lr: { type: 'string', default: '1e-3' },
      seed: { type: 'string', default: '7' },
      out: { type: 'string', default: PATHS.sftCheckpoint },
    },
  });
  await runSft({ steps: Number(values.steps), batch: Number(values.batch), lr: Number(values.lr), out: values.out!, seed: Number(values.seed) });
}
