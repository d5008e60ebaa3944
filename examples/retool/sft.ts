/**
 * Cold-start SFT (ReTool stage 1) for the embedded model on generated, deliberately imperfect
 * demonstrations (see demos.ts). Writes the checkpoint the main job starts from.
 *
 *   node --import tsx examples/retool/sft.ts [--steps 700] [--batch 16] [--lr 1e-3] [--out examples/retool/checkpoints/sft] [--from CHECKPOINT]
 */
import { existsSync } from 'node:fs';
import { loadMathDataset, localBackend } from 'agentrl';
import { parseSftArgs, runDemoSft, type DemoSftOptions } from '../shared/sft.js';
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
  const { init, ...opts } = parseSftArgs({ steps: '700', out: PATHS.sftCheckpoint }, 'from');
  await runSft({ ...opts, ...(init ? { from: init } : {}) });
}
