/**
 * The end-to-end job of the search and SQL agents (their `main.ts`): evaluate the shipped SFT checkpoint, run RL
 * printing reward per step, evaluate again with the same questions and sampling, print the before/after table.
 * Each example supplies its paths, backend, evaluation and RL run; `extra` options (e.g. `--retriever`) pass through
 * to both.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalResult, TrainingBackend, TrainSummary } from 'agentrl';
import { parseArgs } from './cli.js';
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
  runEval(backend: TrainingBackend, opts: { readonly n: number; readonly problems: number; readonly seed: number; readonly outDir: string } & X): Promise<EvalResult>;
  runRl(backend: TrainingBackend, opts: RlOptions & X): Promise<TrainSummary>;
  evalHeader(n: number): string;
  formatEvalRow(label: string, r: EvalResult): string;
}

/** Runs the job from the command line (`--checkpoint --steps --questions --group --lr --n --problems --seed`). */
export async function runAgentJob<X extends object>(job: AgentJob<X>): Promise<void> {
  const { values } = parseArgs({
    options: {
      checkpoint: { type: 'string', default: job.paths.sftCheckpoint },
      steps: { type: 'string', default: '20' },
      questions: { type: 'string', default: '8' },
      group: { type: 'string', default: '8' },
      lr: { type: 'string', default: '2e-4' },
      n: { type: 'string', default: '4' },
      problems: { type: 'string', default: '64' },
      seed: { type: 'string', default: '1' },
      ...Object.fromEntries((job.extraOptions ?? []).map((k) => [k, { type: 'string' as const }])),
    },
  });
  const v = values as Record<string, string | undefined>;
  const n = Number(v['n']);
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(0)}s`;

  const checkpoint = v['checkpoint']!;
  if (!existsSync(join(checkpoint, 'config.json'))) {
    console.error(`missing SFT checkpoint at ${checkpoint}; regenerate it with: npm run ${job.name}:sft`);
    process.exit(1);
  }
  const runDir = join(job.paths.runs, new Date().toISOString().replace(/[:.]/g, '-'));
  const extra = job.extra?.(v) ?? ({} as X);
  const backend = job.makeBackend({ checkpoint });
  const evalOpts = { n, problems: Number(v['problems']), seed: 1234, ...extra };

  console.log(`[${elapsed()}] evaluating the SFT checkpoint on ${evalOpts.problems} held-out questions × ${n} samples …`);
  const before = await job.runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-sft') });
  console.log(job.formatEvalRow('SFT', before));
  console.log(`[${elapsed()}] RL: ${v['steps']} steps × ${v['questions']} questions × group ${v['group']}, PPO clip [0.8, 1.28], lr ${v['lr']} (log: ${runDir}/metrics.jsonl)`);
  const summary = await job.runRl(backend, {
    steps: Number(v['steps']),
    questionsPerBatch: Number(v['questions']),
    groupSize: Number(v['group']),
    learningRate: Number(v['lr']),
    logDir: runDir,
    seed: Number(v['seed']),
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
  console.log('\n' + job.evalHeader(n));
  console.log(job.formatEvalRow('SFT', before));
  console.log(job.formatEvalRow('SFT + RL', after));
  const d = (k: string) => ((after.metrics[k] ?? 0) - (before.metrics[k] ?? 0)) * 100;
  const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  console.log(`\nRL vs SFT: Average@${n} ${sign(d('eval/average_at_n'))} pts, valid tool-call rate ${sign(d('eval/valid_tool_call_rate'))} pts  (${elapsed()} total)`);
}
