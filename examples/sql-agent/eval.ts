/**
 * eval: the SQL agent on held-out lookup questions (Average@N, Pass@N, answer-format rate, valid tool-call rate,
 * mean queries, mean turns), with the same sampling settings before and after RL.
 *
 *   node --import tsx examples/sql-agent/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out DIR]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { join } from 'node:path';
import { evaluate, loadMathDataset, type EvalResult, type TrainingBackend } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, PATHS, SAMPLING } from './config.js';
import { loadDatabase, sqlEnv, sqlReward } from './env.js';
import { evalTable } from '../shared/eval-table.js';

/** Options of {@link runEval}. */
export interface EvalOptions {
  /** Samples per question. */
  readonly n: number;
  /** Held-out questions used (the first ones of `lookup-test.jsonl`). */
  readonly problems: number;
  readonly seed: number;
  /** Writes `sql.jsonl` (one record per question) here when given. */
  readonly outDir?: string;
}

/** Evaluates the backend's current weights on the held-out questions. */
export async function runEval(backend: TrainingBackend, opts: EvalOptions): Promise<EvalResult> {
  const examples = await loadMathDataset(PATHS.test, { limit: opts.problems });
  const sampler = await backend.saveWeightsForSampler();
  const renderer = await backend.renderer();
  const database = loadDatabase();
  const env = sqlEnv(database);
  const reward = sqlReward(database);
  try {
    return await evaluate({
      sampler,
      renderer,
      env,
      reward,
      examples,
      n: opts.n,
      budgets: BUDGETS,
      sampling: { ...SAMPLING, seed: opts.seed },
      ...(opts.outDir ? { outPath: join(opts.outDir, 'sql.jsonl') } : {}),
    });
  } finally {
    await env.close?.();
    await reward.close();
  }
}

const table = evalTable(14, 'queries');
/** Column header of {@link formatEvalRow}. */
export const evalHeader = table.header;
/** One table row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean queries, mean turns. */
export const formatEvalRow = table.row;

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: async (backend, opts) => [['SQL agent', await runEval(backend, opts)]],
    evalHeader,
    formatEvalRow,
  });
}
