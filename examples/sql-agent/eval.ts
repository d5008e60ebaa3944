/**
 * eval: the SQL agent on held-out lookup questions (Average@N, Pass@N, answer-format rate, valid tool-call rate,
 * mean queries, mean turns), with the same sampling settings before and after RL.
 *
 *   node --import tsx examples/sql-agent/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out DIR]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { evalTable, type EvalResult, type TrainingBackend } from 'agentrl';
import { evaluateHeldOut, type HeldOutOptions } from '../shared/held-out.js';
import { makeBackend } from './backend.js';
import { BUDGETS, PATHS, SAMPLING } from './config.js';
import { loadDatabase, sqlEnv, sqlReward } from './env.js';

/** Options of {@link runEval}: the first `problems` questions of `lookup-test.jsonl`; `outDir` receives `sql.jsonl`. */
export type EvalOptions = HeldOutOptions;

/** Evaluates the backend's current weights on the held-out questions. */
export async function runEval(backend: TrainingBackend, opts: EvalOptions): Promise<EvalResult> {
  const database = loadDatabase();
  const [result] = await evaluateHeldOut(backend, { testPath: PATHS.test, budgets: BUDGETS, sampling: SAMPLING, reward: sqlReward(database) }, opts, [
    { env: sqlEnv(database), file: 'sql.jsonl' },
  ]);
  return result!;
}

/** The table, one row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean queries, mean turns. */
export const EVAL_TABLE = evalTable({ labelWidth: 14, toolColumn: 'queries' });

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: async (backend, opts) => [['SQL agent', await runEval(backend, opts)]],
    table: EVAL_TABLE,
  });
}
