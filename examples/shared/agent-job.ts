/**
 * The end-to-end job of the search and SQL agents (their `main.ts`): evaluate the shipped SFT checkpoint, run RL
 * printing reward per step, evaluate again with the same questions and sampling, print the before/after table.
 * Each example supplies its paths, backend, evaluation and RL run; `extra` options (e.g. `--retriever`) pass through
 * to both.
 */
import { join } from 'node:path';
import type { EvalResult, EvalTable, TrainingBackend, TrainSummary } from 'agentrl';
import { parseArgs } from './cli.js';
import { evalSampleFlags, optional, rlRunFlags, rlRunOptions, str } from './flags.js';
import { headlineDelta, newRunDir, requireCheckpoint, stopwatch } from './job.js';
import type { RlOptions } from './rl.js';

/** What one example plugs into {@link runAgentJob}. */
export interface AgentJob<X extends object> {
  /** The npm script name, e.g. `'search-agent'` (its `:sft` script regenerates the checkpoint). */
  readonly name: string;
  readonly paths: { readonly sftCheckpoint: string; readonly runs: string };
  /** The step line's word for tool calls, e.g. `'searches'`. */
  readonly toolCalls: string;
  /** Further string options of the command line, and the evaluation/RL options they become. */
  readonly extraOptions?: readonly string[];
  readonly extra?: (values: Readonly<Record<string, string | undefined>>) => X;
  makeBackend(choice: { readonly checkpoint: string }): TrainingBackend;
  runEval(
    backend: TrainingBackend,
    opts: { readonly n: number; readonly problems: number; readonly seed: number; readonly outDir: string } & X,
  ): Promise<EvalResult>;
  runRl(backend: TrainingBackend, opts: RlOptions & X): Promise<TrainSummary>;
  /** The before/after table. */
  readonly table: EvalTable;
}

/** Runs the job from the command line (`--checkpoint --steps --questions --group --lr --n --problems --seed`). */
export async function runAgentJob<X extends object>(job: AgentJob<X>): Promise<void> {
  const { values } = parseArgs({
    options: {
      checkpoint: str(job.paths.sftCheckpoint),
      ...rlRunFlags({ steps: '20', lr: '2e-4' }),
      ...evalSampleFlags('64'),
      seed: str('1'),
      ...Object.fromEntries((job.extraOptions ?? []).map((k) => [k, optional()])),
    },
  });
  const v = values as Record<string, string | undefined>;
  const n = Number(v['n']);
  const elapsed = stopwatch();

  const checkpoint = v['checkpoint']!;
  requireCheckpoint(checkpoint, `${job.name}:sft`);
  const runDir = newRunDir(job.paths.runs);
  const extra = job.extra?.(v) ?? ({} as X);
  const backend = job.makeBackend({ checkpoint });
  const evalOpts = { n, problems: Number(v['problems']), seed: 1234, ...extra };

  console.log(`[${elapsed()}] evaluating the SFT checkpoint on ${evalOpts.problems} held-out questions × ${n} samples …`);
  const before = await job.runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-sft') });
  console.log(job.table.row('SFT', before));
  console.log(
    `[${elapsed()}] RL: ${v['steps']} steps × ${v['questions']} questions × group ${v['group']}, PPO clip [0.8, 1.28], lr ${v['lr']} (log: ${runDir}/metrics.jsonl)`,
  );
  const summary = await job.runRl(backend, {
    ...rlRunOptions(v, runDir),
    ...extra,
    onStep: (step, m) =>
      console.log(
        `[${elapsed()}] step ${String(step).padStart(3)}  reward/mean ${(m['reward/mean'] ?? 0).toFixed(3)}  ${job.toolCalls} ${(m['rollout/tool_calls'] ?? 0).toFixed(2)}  valid-call ${(m['rollout/valid_tool_call_rate'] ?? 0).toFixed(2)}`,
      ),
  });
  await backend.saveState(join(runDir, 'final'));
  console.log(`[${elapsed()}] evaluating the RL policy …`);
  const after = await job.runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-rl') });
  await backend.close();

  const h = summary.rewardHistory;
  const third = Math.max(1, Math.floor(h.length / 3));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`\nreward/mean per step: ${h.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`reward/mean, first third ${mean(h.slice(0, third)).toFixed(3)} → last third ${mean(h.slice(-third)).toFixed(3)}`);
  console.log('\n' + job.table.header(n));
  console.log(job.table.row('SFT', before));
  console.log(job.table.row('SFT + RL', after));
  console.log(`\nRL vs SFT: ${headlineDelta(before, after, n)}  (${elapsed()} total)`);
}
