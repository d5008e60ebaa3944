/**
 * eval: the search agent on held-out questions (Average@N, Pass@N, answer-format rate, valid tool-call rate,
 * mean searches, mean turns), with the same sampling settings before and after RL.
 *
 *   node --import tsx examples/search-agent/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out DIR]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { evalTable, type EvalResult, type TrainingBackend } from 'agentrl';
import { evaluateHeldOut, type HeldOutOptions } from '../shared/held-out.js';
import { makeBackend } from './backend.js';
import { BUDGETS, PATHS, SAMPLING } from './config.js';
import { makeRetriever, searchEnv, searchReward } from './env.js';
import { optional } from '../shared/flags.js';

/** Options of {@link runEval}: the first `problems` questions of `facts-test.jsonl`; `outDir` receives `search.jsonl`. */
export interface EvalOptions extends HeldOutOptions {
  /** A Search-R1-compatible `/retrieve` URL instead of the embedded BM25 index. */
  readonly retrieverUrl?: string;
}

/** Evaluates the backend's current weights on the held-out questions. */
export async function runEval(backend: TrainingBackend, opts: EvalOptions): Promise<EvalResult> {
  const env = searchEnv(await makeRetriever(opts.retrieverUrl));
  const [result] = await evaluateHeldOut(backend, { testPath: PATHS.test, budgets: BUDGETS, sampling: SAMPLING, reward: searchReward() }, opts, [
    { env, file: 'search.jsonl' },
  ]);
  return result!;
}

/** The table, one row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean searches, mean turns. */
export const EVAL_TABLE = evalTable({ labelWidth: 14, toolColumn: 'searches' });

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    flags: { retriever: optional() },
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: async (backend, opts, v) => [
      ['search agent', await runEval(backend, { ...opts, ...(v['retriever'] ? { retrieverUrl: v['retriever'] as string } : {}) })],
    ],
    table: EVAL_TABLE,
  });
}
