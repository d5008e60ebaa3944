import { passAtKMetrics } from './pass-at-k.js';
import { clusteredMeanInterval, wilsonInterval } from './interval.js';
import { mkdir, writeFile } from '../platform/fs.js';
import { dirname } from '../platform/path.js';
import type { SamplingClient, TrainingBackend } from '../backend/types.js';
import { ConfigError } from '../errors/config-error.js';
import { z } from '../util/zod.js';
import type { Renderer } from '../chat/types.js';
import type { Environment } from '../env/types.js';
import type { Reward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { runRollouts } from '../rollout/index.js';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutFailureStrategy, type RolloutSampling } from '../rollout/types.js';
import { rolloutMetrics } from './rollout-metrics.js';
import { scoreGroups } from '../reward/score-trajectories.js';
import { checkOptions, parseOptions, optionKeys, objectValue, fnValue, anyValue } from '../util/check-options.js';

const EVALUATE_OPTIONS = optionKeys<EvaluateOptions>({
  backend: true,
  sampler: true,
  renderer: true,
  sampling: true,
  budgets: true,
  templateKwargs: true,
  outPath: true,
  concurrency: true,
  maxContextTokens: true,
  rewardTimeoutMs: true,
  trajectoryTimeoutMs: true,
  stepTimeoutMs: true,
  failure: true,
  signal: true,
  n: true,
  env: objectValue,
  reward: fnValue,
  examples: anyValue,
});

/**
 * The sampling seed {@link evaluate} and the Trainer's in-training eval use when none is given: the same weights on
 * the same problems give the same number in both.
 */
export const DEFAULT_EVAL_SEED = 20_231_219;

/** Options of {@link evaluate}: the policy is given as a `backend` (its current weights), or as a `sampler` with its `renderer`. */
export interface EvaluateOptions<E extends Example = Example> {
  /**
   * The backend whose current weights are evaluated (`saveWeightsForSampler()`, its `renderer()` and
   * `maxContextTokens`). Give either this or `sampler` + `renderer`.
   */
  readonly backend?: TrainingBackend;
  /** Samples the candidates (the policy under evaluation); with `renderer`, instead of `backend`. */
  readonly sampler?: SamplingClient;
  /** The chat template and tokenizer of the model; with `sampler`, instead of `backend`. */
  readonly renderer?: Renderer;
  /** The environment; for a text-only baseline pass one with `tools: []`. */
  readonly env: Environment<E>;
  /** Scores each candidate; `correct` counts for Average@N / Pass@N. */
  readonly reward: Reward<E>;
  /** The problems to evaluate (at least one). */
  readonly examples: readonly E[];
  /** Candidates per problem (N of Average@N / Pass@N). @default 4 */
  readonly n?: number;
  /**
   * Sampling settings; keep them identical across the runs you compare. The seed defaults to
   * {@link DEFAULT_EVAL_SEED}, as in the Trainer's in-training eval, so the same weights give the same number; pass
   * `seed: undefined` for fresh randomness. @default temperature 1, topP 1, seed DEFAULT_EVAL_SEED
   */
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
   * problem ends as `max_trajectory_tokens` instead of failing. @default `backend.maxContextTokens`, or
   * `sampler.maxContextTokens` when the sampler reports one
   */
  readonly maxContextTokens?: number;
  /** Per-trajectory reward deadline in ms; a reward past it scores the candidate wrong (`reward_timeout`). @default 60000 */
  readonly rewardTimeoutMs?: number;
  /** Per-trajectory wall-clock limit in ms (see `RolloutContext.trajectoryTimeoutMs`). */
  readonly trajectoryTimeoutMs?: number;
  /** Deadline of one `env.step` call in ms (see `RolloutContext.stepTimeoutMs`). @default the environment's, else 60 000 */
  readonly stepTimeoutMs?: number;
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
   * ≥ 1 correct candidate), their standard errors and 95% intervals (`eval/average_at_n_stderr`,
   * `eval/average_at_n_ci95_low` / `_high`: clustered by problem; `eval/pass_at_n_stderr`, `eval/pass_at_n_ci95_low` /
   * `_high`: Wilson; no standard errors with a single problem), `eval/format_rate`, `eval/valid_tool_call_rate`, `eval/tool_calls`, `eval/turns`,
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
 * measure the gain of tool use (the ReTool recipe's `eval.py`, KMnO4-zx/agentic-rl-lab `05-retool/eval.py`). Average@N and Pass@N as defined there.
 */
export async function evaluate<E extends Example>(opts: EvaluateOptions<E>): Promise<EvalResult> {
  checkOptions('evaluate options', EVALUATE_OPTIONS, opts, {
    signature: 'evaluate({ backend, env, reward, examples, … }) or evaluate({ sampler, renderer, env, reward, examples, … })',
  });
  const { sampler, renderer, maxContextTokens } = await policyOf(opts);
  const n = opts.n ?? 4;
  const budgets = cappedBudgets({ ...DEFAULT_BUDGETS, ...opts.budgets }, maxContextTokens);
  const signal = opts.signal ?? new AbortController().signal;
  const sampling: RolloutSampling = { ...opts.sampling, ...(opts.sampling && 'seed' in opts.sampling ? {} : { seed: DEFAULT_EVAL_SEED }) };
  const groups_P = await runRollouts(
    {
      sampler,
      renderer,
      env: opts.env as Environment,
      budgets,
      maxConcurrentGroups: opts.concurrency ?? 16,
      signal,
      ...(opts.failure ? { failure: opts.failure } : {}),
      ...(opts.trajectoryTimeoutMs !== undefined ? { trajectoryTimeoutMs: opts.trajectoryTimeoutMs } : {}),
      ...(opts.stepTimeoutMs !== undefined ? { stepTimeoutMs: opts.stepTimeoutMs } : {}),
      sampling,
      ...(opts.templateKwargs ? { templateKwargs: opts.templateKwargs } : {}),
    },
    opts.examples,
    n,
  );
  if (signal.aborted) throw signal.reason;
  const rewards_P = await scoreGroups(opts.reward as Reward, groups_P, { timeoutMs: opts.rewardTimeoutMs ?? 60_000, signal });
  if (signal.aborted) throw signal.reason;
  const records = opts.examples.map((ex, p) => evalRecord(ex, groups_P[p]!, rewards_P[p]!));
  const allT = groups_P.flat();
  const allR = rewards_P.flat();
  const rm = rolloutMetrics(groups_P.map((trajectories, p) => ({ trajectories, rewards: rewards_P[p]!, degenerate: false })));
  const metrics: Record<string, number> = {
    'eval/average_at_n': allR.length ? allR.filter((r) => r.correct).length / allR.length : 0,
    'eval/pass_at_n': records.length ? records.filter((r) => r.correct.some(Boolean)).length / records.length : 0,
    ...intervalMetrics(records),
    'eval/format_rate': rm['reward/format']!,
    'eval/valid_tool_call_rate': rm['rollout/valid_tool_call_rate']!,
    'eval/tool_use_rate': rm['rollout/tool_use_rate']!,
    'eval/tool_calls': rm['rollout/tool_calls']!,
    'eval/turns': rm['rollout/turns']!,
    'eval/self_correction_rate': selfCorrection(allT, allR),
    'eval/error_rate': allR.length
      ? allR.filter((r) => r.failure === 'rollout_error' || r.failure === 'reward_error' || r.failure === 'reward_timeout').length / allR.length
      : 0,
    'eval/n': n,
    'eval/problems': records.length,
    ...passAtKMetrics(
      records.map((r) => r.correct),
      n,
    ),
  };
  if (opts.outPath) {
    await mkdir(dirname(opts.outPath), { recursive: true });
    await writeFile(opts.outPath, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  return { metrics, records };
}

const policySchema = z.looseObject({
  backend: z
    .custom<TrainingBackend>((v) => typeof v === 'object' && v !== null && typeof (v as TrainingBackend).saveWeightsForSampler === 'function', {
      message: 'expected a TrainingBackend',
    })
    .optional(),
  sampler: z
    .custom<SamplingClient>((v) => typeof v === 'object' && v !== null && typeof (v as SamplingClient).sample === 'function', {
      message: 'expected a SamplingClient',
    })
    .optional(),
  renderer: z
    .custom<Renderer>((v) => typeof v === 'object' && v !== null && typeof (v as Renderer).renderPrompt === 'function', { message: 'expected a Renderer' })
    .optional(),
});

/** The sampler, renderer and context of the policy: from `backend`, or `sampler` + `renderer`. */
async function policyOf(
  opts: Pick<EvaluateOptions, 'backend' | 'sampler' | 'renderer' | 'maxContextTokens'>,
): Promise<{ sampler: SamplingClient; renderer: Renderer; maxContextTokens: number | undefined }> {
  parseOptions(policySchema, opts, 'evaluate options');
  if (opts.backend) {
    if (opts.sampler || opts.renderer) {
      throw new ConfigError('evaluate options', [
        { path: opts.sampler ? 'sampler' : 'renderer', message: 'give either backend, or sampler and renderer, not both' },
      ]);
    }
    return {
      sampler: await opts.backend.saveWeightsForSampler(),
      renderer: await opts.backend.renderer(),
      maxContextTokens: opts.maxContextTokens ?? opts.backend.maxContextTokens,
    };
  }
  if (!opts.sampler || !opts.renderer) {
    throw new ConfigError('evaluate options', [{ path: opts.sampler ? 'renderer' : 'backend', message: `missing (give backend, or sampler and renderer)` }]);
  }
  return { sampler: opts.sampler, renderer: opts.renderer, maxContextTokens: opts.maxContextTokens ?? opts.sampler.maxContextTokens };
}

/** 95% intervals and standard errors of Average@N (clustered by problem) and Pass@N (Wilson). */
function intervalMetrics(records: readonly EvalRecord[]): Record<string, number> {
  const avg = clusteredMeanInterval(records.map((r) => (r.correct.length ? r.correct.filter(Boolean).length / r.correct.length : 0)));
  const pass = wilsonInterval(records.filter((r) => r.correct.some(Boolean)).length, records.length);
  return {
    ...(Number.isFinite(avg.stderr) ? { 'eval/average_at_n_stderr': avg.stderr } : {}),
    'eval/average_at_n_ci95_low': avg.low,
    'eval/average_at_n_ci95_high': avg.high,
    ...(Number.isFinite(pass.stderr) ? { 'eval/pass_at_n_stderr': pass.stderr } : {}),
    'eval/pass_at_n_ci95_low': pass.low,
    'eval/pass_at_n_ci95_high': pass.high,
  };
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
