/**
 * SQL agent RL (SkyRL-SQL recipe, scaled down): the policy may run one read-only query with `execute_sql`, then
 * answers with a final ```sql block; reward = execution match against the gold SQL (1 / 0), query results masked
 * out of the loss, GRPO group-centred advantages, PPO with asymmetric clipping 0.8 / 1.28.
 * Starts from the shipped cold-start SFT checkpoint (backend.ts says how to use another backend).
 *
 *   node --import tsx examples/sql-agent/train.ts [--checkpoint DIR] [--steps 20] [--questions 8] [--group 8] [--lr 2e-4]
 */
import { runRlCli } from '../shared/rl-cli.js';
import type { TrainingBackend, TrainSummary } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { loadDatabase, sqlEnv, sqlReward } from './env.js';
import { trainOnSplit, type RlOptions } from '../shared/rl.js';

export type { RlOptions };

/** Runs RL on `backend` (already holding the starting weights) and returns the trainer's summary. */
export async function runRl(backend: TrainingBackend, opts: RlOptions): Promise<TrainSummary> {
  const database = loadDatabase();
  return trainOnSplit(
    backend,
    { env: sqlEnv(database), reward: sqlReward(database), trainPath: PATHS.train, budgets: BUDGETS, sampling: SAMPLING, contextTokens: MODEL.contextTokens },
    opts,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runRlCli({
    paths: PATHS,
    defaults: { steps: '20', lr: '2e-4' },
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: (backend, opts) => runRl(backend, { ...opts, progress: true }),
  });
}
