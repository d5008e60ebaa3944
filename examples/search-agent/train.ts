/**
 * Search agent RL (Search-R1 recipe, scaled down): the policy calls a `search` tool over a one-fact-per-passage
 * encyclopedia and answers inside <answer>…</answer>; reward = normalised exact match (1 / 0), retrieved passages
 * masked out of the loss, GRPO group-centred advantages, PPO with asymmetric clipping 0.8 / 1.28.
 * Starts from the shipped cold-start SFT checkpoint (backend.ts says how to use another backend).
 *
 *   node --import tsx examples/search-agent/train.ts [--checkpoint DIR] [--steps 20] [--questions 8] [--group 8] [--lr 2e-4] [--retriever URL]
 */
import { runRlCli } from '../shared/rl-cli.js';
import type { TrainingBackend, TrainSummary } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { makeRetriever, searchEnv, searchReward } from './env.js';
import { trainOnSplit, type RlOptions } from '../shared/rl.js';
import { optional } from '../shared/flags.js';

/** Options of {@link runRl}. */
export interface SearchRlOptions extends RlOptions {
  /** A Search-R1-compatible `/retrieve` URL instead of the embedded BM25 index. */
  readonly retrieverUrl?: string;
}

/** Runs RL on `backend` (already holding the starting weights) and returns the trainer's summary. */
export async function runRl(backend: TrainingBackend, opts: SearchRlOptions): Promise<TrainSummary> {
  const env = searchEnv(await makeRetriever(opts.retrieverUrl));
  return trainOnSplit(
    backend,
    { env, reward: searchReward(), trainPath: PATHS.train, budgets: BUDGETS, sampling: SAMPLING, contextTokens: MODEL.contextTokens },
    opts,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runRlCli({
    paths: PATHS,
    defaults: { steps: '20', lr: '2e-4' },
    flags: { retriever: optional() },
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: (backend, opts, v) => runRl(backend, { ...opts, progress: true, ...(v['retriever'] ? { retrieverUrl: v['retriever'] as string } : {}) }),
  });
}
