/**
 * eval: text-only mode vs tool mode on the same held-out problems and sampling settings
 * (Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns).
 *
 *   node --import tsx examples/retool/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out runs/retool/eval] [--session]
 */
import { parseArgs } from '../shared/cli.js';
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
  const { values } = parseArgs({
    options: {
      checkpoint: { type: 'string', default: PATHS.sftCheckpoint },
      n: { type: 'string', default: '4' },
      problems: { type: 'string', default: '64' },
      seed: { type: 'string', default: '1234' },
      out: { type: 'string', default: join(PATHS.runs, 'eval') },
      session: { type: 'boolean', default: false },
    },
  });
  const backend = localBackend({ ...MODEL, checkpoint: values.checkpoint! });
  const r = await runEval(backend, { n: Number(values.n), problems: Number(values.problems), seed: Number(values.seed), outDir: values.out!, session: values.session! });
  console.log(evalHeader(Number(values.n)));
  console.log(formatEvalRow('tool mode', r.tool));
  if (r.text) console.log(formatEvalRow('text-only mode', r.text));
  await backend.close();
}
