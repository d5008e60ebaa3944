/**
 * Cold-start SFT for the SQL agent on the embedded model: length-bucketed cross-entropy on the imperfect
 * demonstrations of demos.ts. Writes the checkpoint `npm run sql-agent` starts from.
 *
 *   node --import tsx examples/sql-agent/sft.ts [--steps 500] [--batch 16] [--lr 1e-3] [--init DIR] [--out examples/sql-agent/checkpoints/sft]
 */
import { loadMathDataset } from 'agentrl';
import { parseSftArgs, runDemoSft, type DemoSftOptions } from '../shared/sft.js';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS } from './config.js';
import { buildDemoDatums } from './demos.js';
import { loadDatabase, sqlEnv } from './env.js';

/** Options of {@link runSft}. */
export interface SftOptions extends DemoSftOptions {
  /** Passes of demonstrations drawn over the training questions. @default 2 */
  readonly epochs?: number;
  /** Continue from this checkpoint (weights + optimizer state) instead of fresh weights. */
  readonly init?: string;
}

/** Runs cold-start SFT (from fresh weights, or from `opts.init`) and saves the result to `opts.out` (`saveState`). */
export async function runSft(opts: SftOptions): Promise<void> {
  const train = await loadMathDataset(PATHS.train);
  const backend = makeBackend(opts.init !== undefined ? { checkpoint: opts.init } : { seed: opts.seed });
  await runDemoSft(backend, opts, async (renderer) => {
    const env = sqlEnv(loadDatabase());
    const { datums, styles, dropped } = await buildDemoDatums(renderer, env, train, {
      seed: opts.seed,
      epochs: opts.epochs ?? 2,
      maxToolResponseTokens: BUDGETS.maxToolResponseTokens,
      maxTokens: MODEL.contextTokens,
    });
    await env.close?.();
    return { datums, note: `${JSON.stringify(styles)}; ${dropped} over the context left out` };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSft(parseSftArgs({ steps: '500', epochs: '2', out: PATHS.sftCheckpoint }));
}
