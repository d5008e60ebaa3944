/**
 * Cold-start SFT (ReTool stage 1) for the embedded model on generated, deliberately imperfect
 * demonstrations (see demos.ts). Writes the checkpoint the main job starts from.
 *
 *   node --import tsx examples/retool/sft.ts [--steps 700] [--batch 16] [--lr 1e-3] [--out examples/retool/checkpoints/sft] [--from CHECKPOINT]
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadMathDataset, localBackend, mulberry32, type Datum } from 'agentrl';
import { MODEL, PATHS } from './config.js';
import { buildDemoDatums, renderOnlyEnv } from './demos.js';
import { prepareData } from './prepare-data.js';

/** Batches of similar length (less padding, fewer compiled shapes), in a seeded random order. */
function lengthBucketedBatches(datums: readonly Datum[], size: number, seed: number): Datum[][] {
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

export async function runSft(opts: { steps: number; batch: number; lr: number; out: string; seed: number; saveEvery?: number; from?: string; log?: (s: string) => void }) {
  const log = opts.log ?? console.log;
  if (!existsSync(PATHS.train)) await prepareData({ out: PATHS.data, dev: 64, count: 4000, seed: 1 });
  const train = await loadMathDataset(PATHS.train);
  const backend = localBackend({ ...MODEL, seed: opts.seed, ...(opts.from ? { checkpoint: opts.from } : {}) });
  const renderer = await backend.renderer();
  const { datums, styles } = buildDemoDatums(renderer, renderOnlyEnv(), train, { seed: opts.seed, maxTokens: MODEL.contextTokens });
  const longest = Math.max(...datums.map((d) => d.modelInput.length));
  log(`sft: ${datums.length} demonstrations (${JSON.stringify(styles)}), longest ${longest} tokens`);
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
