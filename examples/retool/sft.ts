/**
 * Cold-start SFT (ReTool stage 1) for the embedded model on generated, deliberately imperfect
 * demonstrations (see demos.ts). Writes the checkpoint the main job starts from.
 *
 *   node --import tsx examples/retool/sft.ts [--steps 700] [--batch 16] [--lr 1e-3] [--out examples/retool/checkpoints/sft] [--from CHECKPOINT]
 */
import { parseArgs } from '../shared/cli.js';
import { existsSync } from 'node:fs';
import { loadMathDataset, localBackend } from 'agentrl';
import { runDemoSft, type DemoSftOptions } from '../shared/sft.js';
import { MODEL, PATHS } from './config.js';
import { buildDemoDatums, renderOnlyEnv } from './demos.js';
import { prepareData } from './prepare-data.js';

/** Runs cold-start SFT (from fresh weights, or from `opts.from`) and saves the result to `opts.out`; writes the data set first if missing. */
export async function runSft(opts: DemoSftOptions & { readonly from?: string }): Promise<void> {
  if (!existsSync(PATHS.train)) await prepareData({ out: PATHS.data, dev: 64, count: 4000, seed: 1 });
  const train = await loadMathDataset(PATHS.train);
  const backend = localBackend({ ...MODEL, seed: opts.seed, ...(opts.from ? { checkpoint: opts.from } : {}) });
  await runDemoSft(backend, opts, async (renderer) => {
    const { datums, styles } = await buildDemoDatums(renderer, renderOnlyEnv(), train, { seed: opts.seed, maxTokens: MODEL.contextTokens });
    return { datums, note: JSON.stringify(styles) };
  });
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
