/**
 * eval: text-only mode vs tool mode on the same held-out problems and sampling settings
 * (Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns).
 *
 *   node --import tsx examples/retool/eval.ts [--checkpoint DIR] [--n 4] [--problems 64] [--out runs/retool/eval] [--session]
 */
import { runEvalCli } from '../shared/eval-cli.js';
import { evalTable, localBackend, mathReward, type EvalResult, type TrainingBackend } from 'agentrl';
import { evaluateHeldOut, type HeldOutOptions } from '../shared/held-out.js';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { textOnlyEnv, toolEnv } from './env.js';
import { flag } from '../shared/flags.js';

export interface EvalRun {
  readonly tool: EvalResult;
  readonly text?: EvalResult;
}

/** Evaluates the backend's current weights in tool mode (and text-only mode unless `toolOnly`). */
export async function runEval(backend: TrainingBackend, opts: HeldOutOptions & { readonly toolOnly?: boolean; readonly session?: boolean }): Promise<EvalRun> {
  const modes = [
    { env: toolEnv(4, { session: opts.session ?? false }), file: 'tool.jsonl' },
    ...(opts.toolOnly ? [] : [{ env: textOnlyEnv(), file: 'text-only.jsonl' }]),
  ];
  const [tool, text] = await evaluateHeldOut(backend, { testPath: PATHS.dev, budgets: BUDGETS, sampling: SAMPLING, reward: mathReward() }, opts, modes);
  return text ? { tool: tool!, text } : { tool: tool! };
}

/** The table, one row per run: Average@N, Pass@N, format rate, valid tool-call rate, mean tool calls, mean turns. */
export const EVAL_TABLE = evalTable({ labelWidth: 22, toolColumn: 'tools' });

if (import.meta.url === `file://${process.argv[1]}`) {
  await runEvalCli({
    paths: PATHS,
    flags: { session: flag() },
    makeBackend: (checkpoint) => localBackend({ ...MODEL, checkpoint }),
    run: async (backend, opts, v) => {
      const r = await runEval(backend, { ...opts, session: v['session'] === true });
      return r.text
        ? [
            ['tool mode', r.tool],
            ['text-only mode', r.text],
          ]
        : [['tool mode', r.tool]];
    },
    table: EVAL_TABLE,
  });
}
