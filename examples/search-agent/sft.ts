/**
 * Cold-start SFT for the search agent on the embedded model: length-bucketed cross-entropy on the imperfect
 * demonstrations of demos.ts. Writes the checkpoint `npm run search-agent` starts from.
 *
 *   node --import tsx examples/search-agent/sft.ts [--steps 500] [--batch 16] [--lr 1e-3] [--init DIR] [--out examples/search-agent/checkpoints/sft]
 */
import { parseSftArgs, runAgentSft, type DemoSftOptions } from '../shared/sft.js';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS } from './config.js';
import { buildDemoDatums } from './demos.js';
import { makeRetriever, searchEnv } from './env.js';

/** Options of {@link runSft}. */
export interface SftOptions extends DemoSftOptions {
  /** Passes of demonstrations drawn over the training questions. @default 4 */
  readonly epochs?: number;
  /** Continue from this checkpoint (weights + optimizer state) instead of fresh weights. */
  readonly init?: string;
}

/** Runs cold-start SFT (from fresh weights, or from `opts.init`) and saves the result to `opts.out` (`saveState`). */
export async function runSft(opts: SftOptions): Promise<void> {
  await runAgentSft(
    { paths: PATHS, budgets: BUDGETS, model: MODEL, makeBackend, makeEnv: async () => searchEnv(await makeRetriever()), buildDemoDatums },
    { ...opts, epochs: opts.epochs ?? 4 },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSft(parseSftArgs({ steps: '500', epochs: '4', out: PATHS.sftCheckpoint }));
}
