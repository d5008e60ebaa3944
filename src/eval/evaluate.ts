import { passAtKMetrics } from './pass-at-k.js';
import { mkdir, writeFile } from '../platform/fs.js';
import { dirname } from '../platform/path.js';
import type { SamplingClient } from '../backend/types.js';
import type { Renderer } from '../chat/types.js';
import type { Environment } from '../env/types.js';
import type { Reward } from '../reward/types.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { runRollouts } from '../rollout/index.js';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutFailureStrategy, type RolloutSampling } from '../rollout/types.js';
import { rolloutMetrics } from '../trainer/rollout-metrics.js';
import { scoreGroups } from '../trainer/score.js';

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /** Samples the candidates (the policy under evaluation). */
  readonly sampler: SamplingClient;
  /** The chat template and tokenizer of the model. */
  readonly renderer: Renderer;
  /** The environment; for a text-only baseline pass one with `tools: []`. */
  readonly env: Environment;
  /** Scores each candidate; `correct` counts for Average@N / Pass@N. */
  readonly reward: Reward;
  /** The problems to evaluate (at least one). */
  readonly examples: readonly Example[];
  /** Candidates per problem (N of Average@N / Pass@N). @default 4 */
  readonly n?: number;
  /** Sampling settings; keep them identical across the runs you compare. */
  readonly sampling?: RolloutSampling;
  /** Per-trajectory budgets (tool calls, turns, tokens), over `DEFAULT_BUDGETS`. */
  readonly budgets?: Partial<RolloutBudgets>;
  /** Extra chat-template variables (e.g. `{ enable_thinking: false }`). */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  /** When set, one JSON line per problem is written here. */
  readonly outPath?: string;
  /** Problems rolled out at once. @default 16 */
  readonly concurrency?: number;
  /**
   * The model's context in tokens: `budgets.maxTrajectoryTokens` is capped at it (as the Trainer does), so a long
   * problem ends as `max_trajectory_tokens` instead of failing. @default `sampler.maxContextTokens` when the
   * sampler reports one
   */
  readonly maxContextTokens?: number;
  /** Per-trajectory reward deadline in ms; a reward past it scores the candidate wrong (`reward_timeout`). @default 60000 */
  readonly rewardTimeoutMs?: number;
  /** Per-trajectory wall-clock limit in ms (see `RolloutContext.trajectoryTimeoutMs`). */
  readonly trajectoryTimeoutMs?: number;
  /** What to do with a failed trajectory. @default `{ kind: 'drop' }` (it counts as a wrong candidate) */
  readonly failure?: RolloutFailureStrategy;
  /** Aborts the evaluation promptly: sampling, tool calls and rewards in flight are abandoned and `evaluate` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Per-problem record written to the JSONL file. */
export interface EvalRecord {
  /** The example's id. */
  readonly id: string;
  /** The example's reference answer. */
  readonly answer: string;
  /** Per candidate (N entries): whether the reward judged it correct. */
  readonly correct: readonly boolean[];
  /** Per candidate: the scalar reward. */
  readonly rewards: readonly number[];
  /** Per candidate: the extracted answer, or `null` when none was found. */
  readonly predictions: readonly (string | null)[];
  /** Per candidate: tool calls executed. */
  readonly toolCalls: readonly number[];
  /** Per candidate: assistant turns. */
  readonly turns: readonly number[];
}

/** Summary of one evaluation run. */
export interface EvalResult {
  /**
   * `eval/error_rate` (candidates whose trajectory failed or whose reward threw / timed out; they count as wrong),
   * `eval/average_at_n` (mean correctness over all N·P candidates), `eval/pass_at_n` (share of problems with
   * ≥ 1 correct candidate), `eval/format_rate`, `eval/valid_tool_call_rate`, `eval/tool_calls`, `eval/turns`,
   * `eval/self_correction_rate` (trajectories with a failed execution followed by another tool call that end
   * correct / trajectories with a failed execution followed by another tool call), `eval/n`, `eval/problems`, and the
   * unbiased pass@k for every k ≤ n, `eval/pass_at_1` … `eval/pass_at_{n}` (HumanEval estimator, `passAtK`).
   */
  readonly metrics: Record<string, number>;
  /** One record per problem, in the order of `examples`. */
  readonly records: EvalRecord[];
}

function selfCorrection(ts: readonly Trajectory[], rs: readonly RewardResult[]): number {
  let tried = 0;
  let fixed = 0;
  ts.forEach((t, i) => {
    const firstFail = t.turns.findIndex((u) => u.exec && u.exec.status !== 'ok');
    if (firstFail >= 0 && t.turns.slice(firstFail + 1).some((u) => u.action.kind === 'tool')) {
      tried++;
      if (rs[i]!.correct) fixed++;
    }
  });
  return tried ? fixed / tried : 0;
}

/**
 * Evaluates a policy snapshot on fixed problems: N candidates each, scored by `reward`.
 * Run it twice with the same `sampling` — once with the tool environment, once text-only — to
 * measure the gain of tool use (ReTool seed §8.4.8). Average@N and Pass@N as defined there.
 */
export async function evaluate(opts: EvaluateOptions): Promise<EvalResult> {
  const n = opts.n ?? 4;
  const budgets = cappedBudgets({ ...DEFAULT_BUDGETS, ...opts.budgets }, opts.maxContextTokens ?? opts.sampler.maxContextTokens);
  const signal = opts.signal ?? new AbortController().signal;
  const groups_P = await runRollouts(
    {
      sampler: opts.sampler,
      renderer: opts.renderer,
      env: opts.env,
      budgets,
      maxConcurrentGroups: opts.concurrency ?? 16,
      signal,
      ...(opts.failure ? { failure: opts.failure } : {}),
      ...(opts.trajectoryTimeoutMs !== undefined ? { trajectoryTimeoutMs: opts.trajectoryTimeoutMs } : {}),
      ...(opts.sampling ? { sampling: opts.sampling } : {}),
      ...(opts.templateKwargs ? { templateKwargs: opts.templateKwargs } : {}),
    },
    opts.examples,
    n,
  );
  if (signal.aborted) throw signal.reason;
  const rewards_P = await scoreGroups(opts.reward, groups_P, { timeoutMs: opts.rewardTimeoutMs ?? 60_000, signal });
  if (signal.aborted) throw signal.reason;
  const records = opts.examples.map((ex, p) => evalRecord(ex, groups_P[p]!, rewards_P[p]!));
  const allT = groups_P.flat();
  const allR = rewards_P.flat();
  const rm = rolloutMetrics(groups_P.map((trajectories, p) => ({ trajectories, rewards: rewards_P[p]!, degenerate: false })));
  const metrics: Record<string, number> = {
    'eval/average_at_n': allR.length ? allR.filter((r) => r.correct).length / allR.length : 0,
    'eval/pass_at_n': records.length ? records.filter((r) => r.correct.some(Boolean)).length / records.length : 0,
    'eval/format_rate': rm['reward/format']!,
    'eval/valid_tool_call_rate': rm['rollout/valid_tool_call_rate']!,
    'eval/tool_use_rate': rm['rollout/tool_use_rate']!,
    'eval/tool_calls': rm['rollout/tool_calls']!,
    'eval/turns': rm['rollout/turns']!,
    'eval/self_correction_rate': selfCorrection(allT, allR),
    'eval/error_rate': allR.length ? allR.filter((r) => r.failure === 'rollout_error' || r.failure === 'reward_error' || r.failure === 'reward_timeout').length / allR.length : 0,
    'eval/n': n,
    'eval/problems': records.length,
    ...passAtKMetrics(records.map((r) => r.correct), n),
  };
  if (opts.outPath) {
    await mkdir(dirname(opts.outPath), { recursive: true });
    await writeFile(opts.outPath, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  return { metrics, records };
}

/** `budgets` with `maxTrajectoryTokens` capped at the model's context (unchanged when it is unknown). */
function cappedBudgets(budgets: RolloutBudgets, context: number | undefined): RolloutBudgets {
  return context !== undefined && budgets.maxTrajectoryTokens > context ? { ...budgets, maxTrajectoryTokens: context } : budgets;
}

function evalRecord(ex: Example, ts: readonly Trajectory[], rs: readonly RewardResult[]): EvalRecord {
  return {
    id: ex.id,
    answer: ex.answer,
    correct: rs.map((r) => r.correct),
    rewards: rs.map((r) => r.reward),
    predictions: rs.map((r) => r.answer ?? null),
    toolCalls: ts.map((t) => t.toolCalls),
    turns: ts.map((t) => t.turns.length),
  };
}
