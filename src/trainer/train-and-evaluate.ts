import type { TrainingBackend } from '../backend/types.js';
import type { Environment } from '../env/types.js';
import type { Reward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutSampling } from '../rollout/types.js';
import { coldStart, type ColdStartOptions, type ColdStartResult, type Demonstration } from './cold-start.js';
import { Trainer, type TrainSummary } from './trainer.js';
import type { TrainerOptions } from './options.js';
import { evaluate, type EvalResult } from '../eval/evaluate.js';
import { evalTable, type EvalTableOptions } from '../eval/eval-table.js';
import { z } from '../util/zod.js';
import { parseOptions, partialBudgetsSchema } from '../util/check-options.js';

/** Options of {@link trainAndEvaluate}. */
export interface TrainAndEvaluateOptions<E extends Example = Example> {
  /** Where the model lives (any backend: `localBackend()`, `tinkerBackend(…)`, …); every stage uses its current weights. */
  readonly backend: TrainingBackend;
  /** The task's environment. */
  readonly env: Environment<E>;
  /** Scores each trajectory (RL) and each held-out candidate (`correct` counts for the table). */
  readonly reward: Reward<E>;
  /** RL training problems. */
  readonly train: readonly E[];
  /** Held-out problems, never trained on: evaluated before, after the cold start and after RL. */
  readonly heldOut: readonly E[];
  /**
   * Per-trajectory budgets shared by every stage (cold-start fit check and rendering, RL rollouts, held-out eval), so
   * they can never disagree. @default DEFAULT_BUDGETS for the keys not set
   */
  readonly budgets?: Partial<RolloutBudgets>;
  /** Seed of the cold start's batch order and of the RL run. @default 1 */
  readonly seed?: number;
  /**
   * The cold start: its demonstrations and the supervised settings (`steps`, `batchSize`, `learningRate`, …; see
   * {@link ColdStartOptions}; `budgets` and `seed` come from above). Omit to go straight to RL.
   */
  readonly coldStart?: Omit<ColdStartOptions<E>, 'budgets' | 'seed' | 'maxToolResponseTokens' | 'maxTurnTokens'> & {
    /** The demonstrations trained on. */
    readonly demonstrations: readonly Demonstration<E>[];
  };
  /**
   * The RL run: any `Trainer` option but `backend`, `env`, `reward`, `dataset`, `budgets` (from above). `maxSteps: 0`
   * skips RL. @default loss `{ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }`, seed from above, other Trainer defaults
   */
  readonly rl?: Omit<TrainerOptions<E>, 'backend' | 'env' | 'reward' | 'dataset' | 'budgets' | 'loss'> & { readonly loss?: TrainerOptions<E>['loss'] };
  /** Held-out evaluation: candidates per problem (N of Average@N / Pass@N), sampling (seeded by default), concurrency. */
  readonly eval?: { readonly samples?: number; readonly sampling?: RolloutSampling; readonly concurrency?: number };
  /** How the table looks (label width, tool column, intervals). */
  readonly table?: EvalTableOptions;
  /** Receives the progress lines and the final table. @default console.log */
  readonly log?: (line: string) => void;
  /** Called with the Trainer before it trains, e.g. to listen to its events. */
  readonly onTrainer?: (trainer: Trainer<E>) => void;
}

/** What {@link trainAndEvaluate} did. */
export interface TrainAndEvaluateResult {
  /** The held-out results, in order: before training, after the cold start (when there was one), after RL (when it ran). */
  readonly rows: readonly { readonly label: string; readonly result: EvalResult }[];
  /** The printed held-out table (header and one row per stage). */
  readonly table: string;
  /** The cold start's result (absent without `coldStart`). */
  readonly coldStart?: ColdStartResult;
  /** The RL run's summary (absent when RL did not run). */
  readonly rl?: TrainSummary;
  /** Wall time of the whole pipeline in seconds. */
  readonly wallS: number;
}

const optionsSchema = z.strictObject({
  backend: z.custom<TrainingBackend>((v) => typeof v === 'object' && v !== null && typeof (v as TrainingBackend).saveWeightsForSampler === 'function', {
    message: 'expected a TrainingBackend',
  }),
  env: z.custom<Environment>((v) => typeof v === 'object' && v !== null && typeof (v as Environment).step === 'function', {
    message: 'expected an Environment',
  }),
  reward: z.custom<Reward>((v) => typeof v === 'function', { message: 'expected a reward function' }),
  train: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
  heldOut: z.array(z.custom<Example>(() => true)).min(1, 'expected at least one example'),
  budgets: partialBudgetsSchema.optional(),
  seed: z.number().int().min(0).optional(),
  coldStart: z.looseObject({ demonstrations: z.array(z.unknown()).min(1, 'expected at least one demonstration') }).optional(),
  rl: z.looseObject({}).optional(),
  eval: z
    .strictObject({
      samples: z.number().int().positive().optional(),
      sampling: z.looseObject({}).optional(),
      concurrency: z.number().int().positive().optional(),
    })
    .optional(),
  table: z.looseObject({}).optional(),
  log: z.custom<(line: string) => void>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
  onTrainer: z.custom<(t: unknown) => void>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
});

/**
 * The common case end to end: held-out eval of the fresh weights → cold start on demonstrations → RL → held-out eval,
 * on any backend, with one `budgets` object for every stage and the same seeded held-out sampling at each point
 * (so rows differ by the weights alone). Prints each held-out result as it comes and the table at the end (Average@N
 * and Pass@N with 95% intervals), and returns them.
 * @example
 * ```ts
 * const budgets = { maxToolCalls: 1, maxTurns: 2, maxTurnTokens: 48, maxTrajectoryTokens: 128, maxToolResponseTokens: 8 };
 * await trainAndEvaluate({
 *   backend: localBackend({ contextTokens: 128 }), env, reward, train, heldOut, budgets,
 *   coldStart: { demonstrations, steps: 1000, batchSize: 16, learningRate: 5e-3 },
 *   rl: { maxSteps: 20, optimizer: { learningRate: 1e-3 } },
 * });
 * ```
 * @throws ConfigError for a misspelt or wrongly typed option (naming it), before any work; the stages' own errors
 *   (`DemonstrationError`, `DemonstrationFitError`, the Trainer's `ConfigError`) as they come.
 */
export async function trainAndEvaluate<E extends Example>(opts: TrainAndEvaluateOptions<E>): Promise<TrainAndEvaluateResult> {
  parseOptions(optionsSchema, opts, 'trainAndEvaluate options');
  const t0 = performance.now();
  const log = opts.log ?? console.log;
  const seed = opts.seed ?? 1;
  const budgets: RolloutBudgets = { ...DEFAULT_BUDGETS, ...opts.budgets };
  const n = opts.eval?.samples ?? 4;
  const table = evalTable(opts.table);
  const rows: { label: string; result: EvalResult }[] = [];
  const heldOut = async (label: string): Promise<void> => {
    const result = await evaluate({
      backend: opts.backend,
      env: opts.env,
      reward: opts.reward,
      examples: opts.heldOut,
      n,
      budgets,
      ...(opts.eval?.sampling ? { sampling: opts.eval.sampling } : {}),
      ...(opts.eval?.concurrency ? { concurrency: opts.eval.concurrency } : {}),
    });
    rows.push({ label, result });
    const m = result.metrics;
    log(
      `held-out (${opts.heldOut.length} problems × ${n}) ${label}: avg@${n} ${pct(m['eval/average_at_n'])} [95% CI ${pct(m['eval/average_at_n_ci95_low'])}–${pct(m['eval/average_at_n_ci95_high'])}]`,
    );
  };

  await heldOut('fresh weights');
  let cold: ColdStartResult | undefined;
  if (opts.coldStart) {
    const { demonstrations, ...sft } = opts.coldStart;
    // Progress every tenth of the steps unless the caller listens itself: a long cold start is never silent.
    const every = Math.max(1, Math.round(sft.steps / 10));
    const onStep =
      sft.onStep ??
      ((e: { step: number; loss: number; elapsedS: number }) =>
        e.step % every === 0 && log(`cold start step ${e.step}/${sft.steps} loss ${e.loss.toFixed(3)} (${e.elapsedS.toFixed(0)} s)`));
    cold = await coldStart(opts.backend, opts.env, demonstrations, { seed, budgets, ...sft, onStep });
    const f = cold.fit;
    log(
      `cold start: trained on ${cold.datums} of ${f.total} demonstrations (longest ${f.longest.tokens} of ${f.contextTokens} context tokens, longest turn ${f.longestTurn.tokens} tokens)` +
        (cold.heldOut ? `; held-out tool calls with the right arguments ${pct(cold.heldOut.argumentAccuracy)}` : ''),
    );
    await heldOut('cold start');
  }
  let rl: TrainSummary | undefined;
  const { loss = { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, ...rlRest } = opts.rl ?? {};
  if ((opts.rl?.maxSteps ?? 1) > 0) {
    const trainer = new Trainer<E>({ backend: opts.backend, env: opts.env, reward: opts.reward, dataset: opts.train, budgets, loss, seed, ...rlRest });
    opts.onTrainer?.(trainer);
    rl = await trainer.train();
    await heldOut(opts.coldStart ? 'cold start + RL' : 'RL');
  }
  const text = [table.header(n), ...rows.map((r) => table.row(r.label, r.result))].join('\n');
  const wallS = (performance.now() - t0) / 1000;
  log(`\n${text}\n\ndone in ${wallS.toFixed(0)} s`);
  return { rows, table: text, ...(cold ? { coldStart: cold } : {}), ...(rl ? { rl } : {}), wallS };
}

const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}%`;
