import type { z } from '../util/zod.js';
import { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutFailureStrategy } from '../rollout/types.js';
import type { MetricsSink } from './metrics-sink.js';
import { trainerOptionsSchema } from './config.js';
import { toolDefinitionIssues } from '../env/tool-definitions.js';
import { ConfigError } from '../errors/config-error.js';
import { configIssuesFromZod, schemaKeyPaths, schemaKeysAt } from '../errors/config-issues.js';
import { exampleIssues } from '../data/validate.js';
import { assertZodPeer } from '../util/zod-peer.js';
import type { TrainerEvalOptions, TrainerKlOptions, TrainerOptimizer, TrainerOptions, TrainerRolloutOptions, TrainerSampling } from './options.js';

/**
 * Trainer options after validation: {@link TrainerOptions} with every default filled in (`trainer.options`, and the
 * payload of the `config` event). Defaults: `groupSize` 8, `questionsPerBatch` 8, `maxSteps` 100, `budgets` the
 * `DEFAULT_BUDGETS` under the given ones, `sampling` temperature 1 and topP 1, `optimizer` learningRate 4e-5,
 * beta1 0.9, beta2 0.95, eps 1e-8, weightDecay 0, gradClipNorm 1, `advantage.normalize` 'none', `microBatch`
 * 8192 tokens / 16 datums, `rollout.failure` drop, `rollout.streaming` true, `onPrefixMismatch` 'drop',
 * `async.maxStaleness` 0, `rewardTimeoutMs` 60 000 ms, `skipDegenerateGroups` true, `seed` 0, `shuffle` true,
 * `checkpointEvery` 0 (off), `checkpointKeepLast` 3, `trajectoryLog.perStep` 4, `progress` 'auto', `sinks` [],
 * `updatesPerBatch` 1 minibatch × 1 epoch, `runName` derived from env, loss and batch shape.
 */
export type ResolvedTrainerOptions = Omit<
  TrainerOptions,
  | 'groupSize' | 'questionsPerBatch' | 'maxSteps' | 'budgets' | 'sampling' | 'optimizer' | 'advantage' | 'microBatch'
  | 'rollout' | 'onPrefixMismatch' | 'async' | 'rewardTimeoutMs' | 'skipDegenerateGroups' | 'seed' | 'shuffle'
  | 'checkpointEvery' | 'checkpointKeepLast' | 'eval' | 'trajectoryLog' | 'progress' | 'kl' | 'updatesPerBatch'
  | 'sinks' | 'runName'
> & {
  /** Trajectories sampled per example (≥ 2). */
  readonly groupSize: number;
  /** Examples (groups) per optimizer step. */
  readonly questionsPerBatch: number;
  /** Optimizer steps of the run. */
  readonly maxSteps: number;
  /** Per-trajectory budgets, every one set. */
  readonly budgets: RolloutBudgets;
  /** Sampling settings; `topK` stays unset unless given. */
  readonly sampling: TrainerSampling & {
    /** Softmax temperature of rollouts. */
    readonly temperature: number;
    /** Nucleus mass rollouts are truncated to, in (0, 1]. */
    readonly topP: number;
  };
  /** AdamW settings; `schedule` stays unset (constant learning rate) unless given. */
  readonly optimizer: TrainerOptimizer & {
    /** Adam β₁. */
    readonly beta1: number;
    /** Adam β₂. */
    readonly beta2: number;
    /** Adam ε. */
    readonly eps: number;
    /** Decoupled (AdamW) weight decay. */
    readonly weightDecay: number;
    /** Global gradient L2-norm clip; 0 disables. */
    readonly gradClipNorm: number;
  };
  /** Advantage normalization within a group. */
  readonly advantage: {
    /** `none`: R − mean R; `std`: divided by the group's standard deviation; `rloo`: leave-one-out mean. */
    readonly normalize: 'none' | 'std' | 'rloo';
  };
  /** Micro-batch bounds: tokens and datums per forward-backward call. */
  readonly microBatch: {
    /** Tokens per micro-batch at most. */
    readonly maxTokens: number;
    /** Datums per micro-batch at most. */
    readonly maxDatums: number;
  };
  /** Rollout scheduling, with the failure strategy and the streaming switch set. */
  readonly rollout: TrainerRolloutOptions & {
    /** What happens to a failed trajectory. */
    readonly failure: RolloutFailureStrategy;
    /** Streaming rollouts (true) or the round-synchronous loop (false). */
    readonly streaming: boolean;
  };
  /** What happens to a trajectory whose re-rendered prompt is not a prefix of the tokens sampled before it. */
  readonly onPrefixMismatch: 'drop' | 'split' | 'fail';
  /** Off-policy overlap: how many optimizer steps a rollout's weights may lag behind. */
  readonly async: {
    /** Weights versions a group may lag behind the update. */
    readonly maxStaleness: number;
  };
  /** Upper bound on one reward call, in milliseconds. */
  readonly rewardTimeoutMs: number;
  /** Whether groups whose rewards are all equal are left out of the loss. */
  readonly skipDegenerateGroups: boolean;
  /** Seed of dataset shuffling and of sampling seeds (integer ≥ 0). */
  readonly seed: number;
  /** Whether the dataset is shuffled each epoch. */
  readonly shuffle: boolean;
  /** Checkpoint every this many steps; 0 turns checkpoints off. */
  readonly checkpointEvery: number;
  /** How many checkpoints to keep on disk. */
  readonly checkpointKeepLast: number;
  /** Held-out evaluation, with `samples` and `concurrency` set; absent when not configured. */
  readonly eval?: TrainerEvalOptions & {
    /** Candidates per held-out problem. */
    readonly samples: number;
    /** Problems evaluated at once. */
    readonly concurrency: number;
  };
  /** Trajectories written to `trajectories.jsonl` per step. */
  readonly trajectoryLog: {
    /** Trajectories logged per step. */
    readonly perStep: number;
  };
  /** The progress line on stderr: on, off, or on when stderr is a terminal. */
  readonly progress: boolean | 'auto';
  /** KL penalty against a reference policy, with every default set; absent when not configured. */
  readonly kl?: TrainerKlOptions & Required<Pick<TrainerKlOptions, 'reference' | 'estimator' | 'placement'>>;
  /** Optimizer updates per batch: minibatches per batch × epochs over it. */
  readonly updatesPerBatch: {
    /** Optimizer steps per batch (the batch split in this many parts). */
    readonly minibatches: number;
    /** Passes over the batch. */
    readonly epochs: number;
  };
  /** Metrics sinks written each step. */
  readonly sinks: readonly MetricsSink[];
  /** The run's label (dashboard, plots, logs). */
  readonly runName: string;
};

// What the schema outputs must fit the declared type (checked at compile time), so the two cannot drift apart.
type SchemaResolved = z.output<typeof trainerOptionsSchema> & { budgets: RolloutBudgets; runName: string };
const outputFits: SchemaResolved extends ResolvedTrainerOptions ? true : false = true;
void outputFits;

/**
 * Validates and resolves Trainer options before any work starts.
 * @throws ConfigError listing every problem with its dotted path, e.g. `loss.clipHigh: expected a ratio bound > 1, got 0.28`.
 * @throws ZodVersionError when the zod agentrl resolves (a peer dependency) is not 4.x.
 */
export function resolveTrainerOptions(opts: unknown): ResolvedTrainerOptions {
  assertZodPeer();
  const parsed = trainerOptionsSchema.safeParse(opts);
  // Dataset rows are checked outside the schema (zod skips refinements once another key failed), so that their
  // problems are reported in the same pass, each with its 1-based row number, duplicates included.
  const raw = (typeof opts === 'object' && opts !== null ? opts : {}) as { dataset?: unknown; eval?: { dataset?: unknown }; env?: { tools?: unknown } };
  const rowIssues = [
    // A custom environment's tools pass the rules defineTool's do (names, uniqueness, size) before the first rollout.
    ...(Array.isArray(raw.env?.tools) ? toolDefinitionIssues(raw.env.tools, 'env.tools') : []),
    ...(Array.isArray(raw.dataset) ? exampleIssues(raw.dataset, 'dataset') : []),
    ...(Array.isArray(raw.eval?.dataset) ? exampleIssues(raw.eval.dataset, 'eval.dataset') : []),
  ];
  if (!parsed.success || rowIssues.length > 0) {
    const issues = parsed.success ? [] : configIssuesFromZod(parsed.error.issues, opts, (path) => schemaKeysAt(trainerOptionsSchema, path), schemaKeyPaths(trainerOptionsSchema));
    throw new ConfigError('Trainer options', [...issues, ...rowIssues]);
  }
  const o = parsed.data;
  return { ...o, runName: o.runName ?? defaultRunName(o), budgets: { ...DEFAULT_BUDGETS, ...stripUndefined(o.budgets) } } as ResolvedTrainerOptions;
}

/** The run's label when `runName` is not set: environment, loss and batch shape, e.g. `code-interpreter · ppo · 8×8 · lr 4e-5`. */
export function defaultRunName(o: Pick<z.output<typeof trainerOptionsSchema>, 'env' | 'loss' | 'groupSize' | 'questionsPerBatch' | 'optimizer'>): string {
  const env = typeof o.env.name === 'string' && o.env.name !== '' ? o.env.name : 'env';
  return `${env} · ${o.loss.kind} · ${o.questionsPerBatch}×${o.groupSize} · lr ${o.optimizer.learningRate.toExponential().replace('e+', 'e')}`;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
