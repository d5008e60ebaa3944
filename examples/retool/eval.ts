/**
 * eval: text-only mode vs tool mode on the same held-out problems and sampling settings
 * (Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns).
 *
 *   node --import tsx examples/retool/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out runs/retool/eval] [--session]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { join } from 'node:path';
import { evaluate, loadMathDataset, localBackend, mathReward, type EvalResult, type TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { textOnlyEnv, toolEnv } from './env.js';
import { evalTable } from '../shared/eval-table.js';

export interface EvalRun {
  readonly tool: EvalResult;
  readonly text?: EvalResult;
}

/** Evaluates the backend's current weights in tool mode (and text-only mode unless `toolOnly`). */
export async function runEval(
  backend: TrainingBackend,
  opts: { n: number; problems: number; seed: number; outDir?: string; toolOnly?: boolean; session?: boolean },
): Promise<EvalRun> {
  const dev = await loadMathDataset(PATHS.dev, { limit: opts.problems });
  const sampler = await backend.saveWeightsForSampler();
  const renderer = await backend.renderer();
  const reward = mathReward();
  const common = { sampler, renderer, reward, examples: dev, n: opts.n, budgets: BUDGETS, sampling: { ...SAMPLING, seed: opts.seed } };
  const env = toolEnv(4, { session: opts.session ?? false });
  try {
    const tool = await evaluate({ ...common, env, ...(opts.outDir ? { outPath: join(opts.outDir, 'tool.jsonl') } : {}) });
    if (opts.toolOnly) return { tool };
    const text = await evaluate({ ...common, env: textOnlyEnv(), ...(opts.outDir ? { outPath: join(opts.outDir, 'text-only.jsonl') } : {}) });
    return { tool, text };
  } finally {
    await env.close?.();
    await reward.close();
  }
}

const table = evalTable(22, 'tools');
/** Column header of {@link formatEvalRow}. */
export const evalHeader = table.header;
/** One table row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns. */
export const formatEvalRow = table.row;

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    flags: { session: { type: 'boolean', default: false } },
    makeBackend: (checkpoint) => localBackend({ ...MODEL, checkpoint }),
    run: async (backend, opts, v) => {
      const r = await runEval(backend, { ...opts, session: v['session'] === true });
      return r.text ? [['tool mode', r.tool], ['text-only mode', r.text]] : [['tool mode', r.tool]];
    },
    evalHeader,
    formatEvalRow,
  });
}
