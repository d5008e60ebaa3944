import type { SinkLimits } from './guarded-sink.js';
import type { AdamParams, SamplingClient, TrainingBackend } from '../backend/types.js';
import { ADAM_DEFAULTS } from '../backend/adam-defaults.js';
import type { SamplingSettings } from '../types/sampling.js';
import { DEFAULT_PREFIX_MISMATCH, type PrefixMismatchPolicy } from '../types/prefix-mismatch.js';
import type { DynamicSamplingMetric, KlEstimator, OverlongConfig, RolloutCorrectionConfig } from '../loss/index.js';
import type { LrSchedule } from './lr-schedule.js';
import type { Environment } from '../env/types.js';
import type { GroupReward, Reward } from '../types/reward.js';
import type { Example } from '../types/example.js';
import type { LossConfig } from '../types/loss-config.js';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutFailureStrategy } from '../rollout/types.js';
import type { MetricsSink } from './metrics-sink.js';

// The one declaration of the Trainer's options: their names, types and documentation (the interfaces below) and their
// defaults (TRAINER_DEFAULTS). The schema (config.ts) validates exactly these keys (checked at compile time), takes
// every default from TRAINER_DEFAULTS, and a test checks each `@default` below against what resolving applies.

/**
 * Sampling settings of rollouts (and of the learner's logprobs, which must match them).
 * @deprecated The same type as {@link SamplingSettings}; use that name.
 */
export type TrainerSampling = SamplingSettings;

/**
 * Adam settings of the RL updates.
 * @deprecated {@link AdamParams} with the Trainer's `schedule`; write `TrainerOptions['optimizer']` or `AdamParams`.
 */
export type TrainerOptimizer = AdamParams & { readonly schedule?: LrSchedule };

/**
 * KL penalty to a reference policy. `reference`: a sampling client whose `computeLogprobs` scores the datums (the base
 * model on Tinker, a frozen checkpoint on the embedded engine), or `'base'` (the backend's weights when `train()`
 * first starts: with checkpoints they are saved beside them, in `checkpoints/kl-reference`, and a resumed run
 * restores them, so the KL stays to the original base weights). Metrics `kl/reference_mean`, `kl/reference_max`.
 */
export interface TrainerKlOptions {
  /** β ≥ 0. */
  readonly coef: number;
  /** @default 'base' */
  readonly reference?: SamplingClient | 'base';
  /** `k1` (log ratio), `k2` (½ squared log ratio), `k3` (`exp(−x) − 1 + x`). @default 'k1' */
  readonly estimator?: KlEstimator;
  /** `'advantage'`: `A_t −= β·k_t` (tinker-cookbook); `'loss'`: `+β·k(lp_θ)` in the loss (GRPO; runs as a custom loss). @default 'advantage' */
  readonly placement?: 'advantage' | 'loss';
}

/** How rollouts are run and what happens when one fails. */
export interface TrainerRolloutOptions {
  /** What a failed trajectory (`stopReason: 'error'`) does to the step: drop it, retry it, or stop. @default `{ kind: 'drop' }` */
  readonly failure?: RolloutFailureStrategy;
  /** Wall-clock limit of one trajectory in ms (it ends with `stopReason: 'error'`, stage `timeout`). @default none */
  readonly trajectoryTimeoutMs?: number;
  /**
   * Deadline of one `env.step` call in ms, for every environment (overrides the environment's own `stepTimeoutMs`):
   * a step still pending then — a tool that ignores its abort signal — ends its trajectory with `stopReason: 'error'`,
   * stage `timeout`, and the run goes on. `Infinity` for none.
   * @default the environment's `stepTimeoutMs`, else {@link DEFAULT_STEP_TIMEOUT_MS}
   */
  readonly stepTimeoutMs?: number;
  /** Groups rolled out at the same time, in both modes. @default unbounded (all groups of the step; streaming: as `async.maxStaleness` allows) */
  readonly maxConcurrentGroups?: number;
  /**
   * Stream groups: each trajectory is scored as soon as it ends and a step trains on the first `questionsPerBatch`
   * ready groups; `false` = round-synchronous (every step waits for its whole batch). @default true
   */
  readonly streaming?: boolean;
  /**
   * Trajectories in flight at once, in both modes: a group starts when `groupSize` slots are free (or when nothing is
   * in flight), and each trajectory frees its slot when it ends. @default unbounded
   */
  readonly maxConcurrentTrajectories?: number;
}

/** Evaluation on held-out examples during training (emits `eval` events and `eval/*` metrics). */
export interface TrainerEvalOptions<E extends Example = Example> {
  /** Held-out examples (rows checked like `dataset`). */
  readonly dataset: readonly E[];
  /** Evaluate after every this many steps, and once before the first update (step 0; not when resuming). */
  readonly every: number;
  /** Samples per example (Average@n / Pass@n). @default 4 */
  readonly samples?: number;
  /** Examples evaluated at the same time. @default 16 */
  readonly concurrency?: number;
  /**
   * Sampling seed of every eval. The default is `evaluate()`'s, so an eval here and `evaluate({ backend, … })` with
   * the same sampling settings give the same number for the same weights. @default DEFAULT_EVAL_SEED
   */
  readonly seed?: number;
}

/**
 * Options of `new Trainer(opts)`. Only `backend`, `env`, `reward`, `loss` and `dataset` are required; everything is
 * validated before the first rollout, and a bad value is a `ConfigError` naming it with its dotted path (unknown
 * keys get the closest known one: `optimizer.lr` → `optimizer.learningRate`). Units: steps are optimizer steps,
 * token counts are tokens of the backend's tokenizer, times are milliseconds.
 */
export interface TrainerOptions<E extends Example = Example> {
  /** Where the model lives: trains (`forwardBackward`, `optimStep`) and samples (`saveWeightsForSampler`). E.g. `localBackend()`. */
  readonly backend: TrainingBackend;
  /** The task: tools, opening messages and what happens after each assistant turn. See `docs/custom-environment.md`. */
  // Typed by the dataset's rows: an `Example<Meta>` dataset gives the environment and the reward typed `meta`.
  readonly env: Environment<E>;
  /** Scores a finished trajectory: must return `{ reward: number, correct: boolean, validFormat: boolean }`. */
  readonly reward: Reward<E>;
  /** The policy loss, e.g. `{ kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }` (see `LossConfig`). */
  readonly loss: LossConfig;
  /** Training examples `{ id, question, answer, meta? }` with unique ids (`loadDataset`, `loadMathDataset`). At least one. */
  readonly dataset: readonly E[];
  /** Trajectories sampled per example (GRPO group); advantages are relative to the group, so ≥ 2. @default 8 */
  readonly groupSize?: number;
  /** Examples per step (a step trains on `questionsPerBatch × groupSize` trajectories). @default 8 */
  readonly questionsPerBatch?: number;
  /** Optimizer steps to run (counting the steps of a resumed run). @default 100 */
  readonly maxSteps?: number;
  /**
   * Per-trajectory limits, in tokens and counts (see `RolloutBudgets`). An unset one takes its default (each field's
   * `@default`), fitted within the backend's context: `maxTrajectoryTokens` at most the context, `maxTurnTokens` at
   * most that, `maxToolResponseTokens` at most a quarter of the context.
   */
  readonly budgets?: Partial<RolloutBudgets>;
  /** Sampling of rollouts (temperature, topP, topK). @default `{ temperature: 1, topP: 1 }` */
  readonly sampling?: SamplingSettings;
  /** Adam settings. @default `{ learningRate: 4e-5, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, gradClipNorm: 1 }` */
  readonly optimizer?: AdamParams & {
    /** Learning-rate schedule over `maxSteps` (warm-up, then constant / linear / cosine decay; `optim/lr`). @default constant */
    readonly schedule?: LrSchedule;
  };
  /** Advantage normalisation within a group: `'none'` (r − mean, Dr. GRPO), `'std'` ((r − mean)/std, GRPO), `'rloo'` (leave-one-out). @default `{ normalize: 'none' }` */
  readonly advantage?: { readonly normalize?: 'none' | 'std' | 'rloo' };
  /** Size of one `forwardBackward` call: at most `maxTokens` tokens and `maxDatums` datums. @default `{ maxTokens: 8192, maxDatums: 16 }` */
  readonly microBatch?: { readonly maxTokens?: number; readonly maxDatums?: number };
  /** Failure handling, streaming and concurrency of rollouts. */
  readonly rollout?: TrainerRolloutOptions;
  /**
   * A chat template that rewrites history (the next prompt does not extend the sampled tokens): `'drop'` the
   * trajectory (warned and counted), `'split'` it into one datum per extending run of turns (the prompt is
   * re-rendered), or `'fail'` the step with `RolloutFailedError` (see {@link PrefixMismatchPolicy}). @default 'drop'
   */
  readonly onPrefixMismatch?: PrefixMismatchPolicy;
  /**
   * Overlap rollouts with learning: rollouts for up to `maxStaleness` later steps go on while the learner trains, and
   * groups sampled more than `maxStaleness` weights versions ago are dropped (`rollout/stale_dropped`). 0 = on-policy.
   * Needs `rollout.streaming`. @default `{ maxStaleness: 0 }`
   */
  readonly async?: { readonly maxStaleness?: number };
  /**
   * A reward over a whole group (members compared with each other), added to each member's own reward before
   * advantages are computed (cf. tinker-cookbook `compute_group_rewards`). @default none
   */
  readonly groupReward?: GroupReward;
  /** A reward call that has not resolved after this many ms drops that sample (`reward_timeout`). @default 60000 */
  readonly rewardTimeoutMs?: number;
  /** Leave out groups whose samples all scored alike (zero advantage: nothing to learn). @default true */
  readonly skipDegenerateGroups?: boolean;
  /** Seed of the data order and of sampling (derived per step). @default 0 */
  readonly seed?: number;
  /** Shuffle the dataset each epoch. @default true */
  readonly shuffle?: boolean;
  /** Folder for `metrics.jsonl`, `trajectories.jsonl`, `config.json` and checkpoints. @default none (nothing written) */
  readonly logDir?: string;
  /** Write a checkpoint (weights, optimizer, step, data position) every this many steps; 0 = off. Needs `logDir`. @default 0 */
  readonly checkpointEvery?: number;
  /** Checkpoints kept (older ones are deleted). @default 3 */
  readonly checkpointKeepLast?: number;
  /** Continue from a checkpoint folder, or `'latest'` (the newest in `logDir/checkpoints`). @default none */
  readonly resume?: string;
  /** Evaluate on held-out examples during training. @default none */
  readonly eval?: TrainerEvalOptions<E>;
  /** Trajectories per step written to `trajectories.jsonl` (needs `logDir`). @default `{ perStep: 4 }` */
  readonly trajectoryLog?: { readonly perStep?: number };
  /** One progress line per step and the warnings on stderr: `true`, `false`, or `'auto'` (only on a terminal). @default 'auto' */
  readonly progress?: boolean | 'auto';
  /** KL penalty to a reference model. @default none */
  readonly kl?: TrainerKlOptions;
  /** Truncated / masked importance sampling between the sampler's logprobs and the learner's (`rollout_corr/*`). @default none */
  readonly rolloutCorrection?: RolloutCorrectionConfig;
  /**
   * DAPO dynamic sampling: while fewer than `questionsPerBatch` groups of the step are informative, roll out further
   * batches, at most `maxAttempts` batches in all (`rollout/attempts`, `rollout/refilled_groups`). Informative, by
   * `metric`: `'correct'` (default; DAPO, verl `filter_groups.metric: acc`) — the surviving members are neither all
   * correct nor all wrong; `'reward'` — their shaped rewards are not all equal. A dropped group is never informative.
   * @default none
   */
  readonly dynamicSampling?: {
    /** Batches rolled out per step at most (the first included), ≥ 1. */
    readonly maxAttempts: number;
    /** What makes a group informative. @default 'correct' */
    readonly metric?: DynamicSamplingMetric;
  };
  /**
   * DAPO overlong handling. `{ bufferTokens, penalty, maxResponseTokens? }` adds the soft punishment (DAPO eq. 13)
   * to the reward, measured on the response — the tokens the policy sampled over all turns, prompts and tool
   * observations excluded — against `maxResponseTokens` (default `budgets.maxTrajectoryTokens`); metric
   * `reward/overlong_penalty_mean`. `{ filter: true }` masks truncated samples out of the loss. @default none
   */
  readonly overlong?: OverlongConfig;
  /**
   * Optimizer steps per batch: `epochs` passes over `minibatches` slices of it — exactly `minibatches × epochs` steps
   * whenever the step has datums (with fewer datums than minibatches, each slice is one datum, some used twice; see
   * docs/algorithms.md). @default `{ minibatches: 1, epochs: 1 }`
   */
  readonly updatesPerBatch?: { readonly minibatches?: number; readonly epochs?: number };
  /**
   * On-policy distillation: the teacher's logprobs of the student's own samples give the per-token reverse-KL reward
   * `−coef·(lp_student − lp_teacher)`, added to the advantages; degenerate groups are kept. @default none
   */
  readonly distill?: { readonly teacher: SamplingClient; readonly coef: number };
  /**
   * Entropy bonus (verl's `actor.entropy_coeff`; Schulman et al. 2017, eq. 9): the loss becomes
   * `loss − coef · agg(H)`, with `H_t = −Σ_v p_θ(v) log p_θ(v)` the full-vocabulary entropy of the learner's tempered
   * softmax at each masked token and `agg` the loss's own aggregation. It runs inside the backend's native loss kernel,
   * so it needs a backend with `learnerEntropy` (the embedded engine) and a loss kind the backend runs natively
   * (not `gspo`/`custom`, nor `kl.placement: 'loss'`); otherwise the Trainer throws `ConfigError` before the first
   * rollout. `coef ≥ 0`. @default none
   */
  readonly entropyBonus?: { readonly coef: number };
  /**
   * Where else the run's record goes: step metrics, eval results, the config and trajectories (see
   * {@link MetricsSink}), e.g. `otelSink({ tracer })` from `agentrl/otel`. @default []
   */
  readonly sinks?: readonly MetricsSink[];
  /**
   * Bounds on every sink (the run's own `metrics.jsonl` and progress line too): a deadline per call
   * (`callTimeoutMs`), a bounded queue (`maxQueuedCalls`; calls past it are dropped and counted), and a
   * deadline for the end of the run (`closeTimeoutMs`). A sink that throws, stalls or overflows is a
   * `warning` (`sink_failed`, once per sink and kind), never the run's end. @default {@link DEFAULT_SINK_LIMITS}
   */
  readonly sinkLimits?: SinkLimits;
  /** Extra variables for the chat template (e.g. `{ enable_thinking: false }` for Qwen3). @default none */
  readonly templateKwargs?: Readonly<Record<string, unknown>>;
  /**
   * The run's label in `config.json`, `agentrl plot` and the dashboard (the `logDir` folder name is shown as detail).
   * 1–120 characters. @default derived from the config: `<env> · <loss> · <questionsPerBatch>×<groupSize> · lr <rate>`
   */
  readonly runName?: string;
}

/**
 * The Trainer's defaults, the one place they are stated: the schema fills them in, {@link ResolvedTrainerOptions}
 * is typed from them, and each option's `@default` is checked against them. `optimizer` is {@link ADAM_DEFAULTS}
 * and `budgets` {@link DEFAULT_BUDGETS} (before the unset budgets are fitted to the backend's context). `eval`,
 * `kl` and `dynamicSampling` are off unless given; their entries here fill the fields left out of a given one.
 * Deeply frozen.
 */
export const TRAINER_DEFAULTS = Object.freeze({
  groupSize: 8,
  questionsPerBatch: 8,
  maxSteps: 100,
  budgets: DEFAULT_BUDGETS,
  sampling: Object.freeze({ temperature: 1, topP: 1 }),
  optimizer: ADAM_DEFAULTS,
  advantage: Object.freeze({ normalize: 'none' }),
  microBatch: Object.freeze({ maxTokens: 8192, maxDatums: 16 }),
  rollout: Object.freeze({ failure: Object.freeze({ kind: 'drop' }), streaming: true }),
  onPrefixMismatch: DEFAULT_PREFIX_MISMATCH,
  async: Object.freeze({ maxStaleness: 0 }),
  rewardTimeoutMs: 60_000,
  skipDegenerateGroups: true,
  seed: 0,
  shuffle: true,
  checkpointEvery: 0,
  checkpointKeepLast: 3,
  eval: Object.freeze({ samples: 4, concurrency: 16 }),
  trajectoryLog: Object.freeze({ perStep: 4 }),
  progress: 'auto',
  sinks: Object.freeze([]),
  kl: Object.freeze({ reference: 'base', estimator: 'k1', placement: 'advantage' }),
  dynamicSampling: Object.freeze({ metric: 'correct' }),
  updatesPerBatch: Object.freeze({ minibatches: 1, epochs: 1 }),
} as const satisfies { readonly [K in keyof TrainerOptions]?: Partial<NonNullable<TrainerOptions[K]>> });

/**
 * `T` with the defaults `D` filled in, as a type: a key whose default is a whole value (`D[K]` is a `T[K]`) becomes
 * required; a key whose default only fills some fields of an option that stays off unless given (`kl`, `eval`) stays
 * optional. Either way the fields `D[K]` names become required one level down. Property docs carry over from `T`.
 */
export type WithDefaults<
  T,
  D,
  Whole extends keyof T = { [K in keyof T & keyof D]-?: D[K] extends NonNullable<T[K]> ? K : never }[keyof T & keyof D],
  Filled extends keyof T = Exclude<keyof T & keyof D, Whole>,
> = Omit<T, keyof D> & { readonly [K in Whole]-?: FilledIn<T[K], D[K & keyof D]> } & { readonly [K in Filled]?: FilledIn<T[K], D[K & keyof D]> };

/** `T` (an option's type) with the fields `D` has a value for made required (arrays and scalars as they are). */
export type FilledIn<T, D> = D extends readonly unknown[]
  ? T
  : D extends object
    ? Omit<NonNullable<T>, keyof D> & Required<Pick<NonNullable<T>, keyof D & keyof NonNullable<T>>>
    : T;
