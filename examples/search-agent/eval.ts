/**
 * eval: the search agent on held-out questions (Average@N, Pass@N, answer-format rate, valid tool-call rate,
 * mean searches, mean turns), with the same sampling settings before and after RL.
 *
 *   node --import tsx examples/search-agent/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out DIR]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { join } from 'node:path';
import { evaluate, loadMathDataset, type EvalResult, type TrainingBackend } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, PATHS, SAMPLING } from './config.js';
import { makeRetriever, searchEnv, searchReward } from './env.js';
import { evalTable } from '../shared/eval-table.js';

/** Options of {@link runEval}. */
export interface EvalOptions {
  /** Samples per question. */
  readonly n: number;
  /** Held-out questions used (the first ones of `facts-test.jsonl`). */
  readonly problems: number;
  readonly seed: number;
  /** Writes `search.jsonl` (one record per question) here when given. */
  readonly outDir?: string;
  /** A Search-R1-compatible `/retrieve` URL instead of the embedded BM25 index. */
  readonly retrieverUrl?: string;
}

/** Evaluates the backend's current weights on the held-out questions. */
export async function runEval(backend: TrainingBackend, opts: EvalOptions): Promise<EvalResult> {
  const examples = await loadMathDataset(PATHS.test, { limit: opts.problems });
  const sampler = await backend.saveWeightsForSampler();
  const renderer = await backend.renderer();
  const env = searchEnv(await makeRetriever(opts.retrieverUrl));
  try {
    return await evaluate({
      sampler,
      renderer,
      env,
      reward: searchReward(),
      examples,
      n: opts.n,
      budgets: BUDGETS,
      sampling: { ...SAMPLING, seed: opts.seed },
      ...(opts.outDir ? { outPath: join(opts.outDir, 'search.jsonl') } : {}),
    });
  } finally {
    await env.close?.();
  }
}

const table = evalTable(14, 'searches');
/** Column header of {@link formatEvalRow}. */
export const evalHeader = table.header;
/** One table row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean searches, mean turns. */
export const formatEvalRow = table.row;

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    flags: { retriever: { type: 'string' } },
    makeBackend: (checkpoint) => makeBackend({ checkpoint }),
    run: async (backend, opts, v) => [['search agent', await runEval(backend, { ...opts, ...(v['retriever'] ? { retrieverUrl: v['retriever'] as string } : {}) })]],
    evalHeader,
    formatEvalRow,
  });
}
