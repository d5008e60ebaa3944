/**
 * The RL recipe the three examples share, scaled down from the ReTool seed: PPO with asymmetric clipping 0.8 / 1.28,
 * GRPO group-centred advantages, Adam (β 0.9 / 0.99, grad-norm clip 1), micro-batches of 16 rows of the context.
 * Each example supplies its environment, reward, dataset, budgets and sampling.
 */
import { fileURLToPath } from 'node:url';
import {
  Trainer,
  loadMathDataset,
  localBackend,
  tinkerBackend,
  type Environment,
  type LocalBackendOptions,
  type Reward,
  type TrainerOptions,
  type TrainingBackend,
  type TrainSummary,
} from 'agentrl';

/** The embedded model's tokenizer and chat template (what `agentrl serve` models use). */
const LOCAL_MODEL_DIR = fileURLToPath(new URL('../../assets/local-model', import.meta.url));

/**
 * The backend an example trains: the embedded engine in-process (default), or — with `remote` set to a server URL
 * (`--backend http://127.0.0.1:8000`) — `tinkerBackend` against any Tinker-API server (`agentrl serve`, SkyRL, Tinker).
 * For `agentrl serve`, start it with the same checkpoint: `npm run serve -- --checkpoint <dir>`; the remote model
 * starts from the server's checkpoint, not from `local.checkpoint`.
 */
export function exampleBackend(opts: {
  readonly local: LocalBackendOptions;
  readonly contextTokens: number;
  /** Server URL; undefined trains in-process. */
  readonly remote?: string | undefined;
  /** Base model on the server. @default 'agentrl/local' (what `agentrl serve` offers) */
  readonly baseModel?: string | undefined;
  /** Tokenizer folder of the remote model. @default the embedded model's */
  readonly rendererDir?: string | undefined;
}): TrainingBackend {
  if (opts.remote === undefined) return localBackend(opts.local);
  return tinkerBackend({
    baseUrl: opts.remote,
    baseModel: opts.baseModel ?? 'agentrl/local',
    renderer: opts.rendererDir ?? LOCAL_MODEL_DIR,
    maxContextTokens: opts.contextTokens,
  });
}

/** Run settings an example's `train.ts` takes from its command line or `main.ts`. */
export interface RlOptions {
  readonly steps: number;
  readonly questionsPerBatch: number;
  readonly groupSize: number;
  readonly learningRate: number;
  readonly logDir: string;
  readonly seed: number;
  /** Checkpoint every N steps into `logDir/checkpoints` (0: none). @default 0 */
  readonly checkpointEvery?: number;
  /** Resume from a checkpoint: `'latest'` in `logDir`, or a run or checkpoint folder. */
  readonly resume?: string;
  /** Held-out evaluation during training (`eval/*` metrics in metrics.jsonl and the charts). */
  readonly eval?: { readonly dataset: TrainerOptions['dataset']; readonly every: number; readonly samples: number };
  /**
   * Rollout pipeline: `'streaming'` (default: each trajectory scored as it ends, a step trains on the first ready
   * groups) or `'sync'` (round-synchronous, the step waits for its slowest trajectory).
   */
  readonly rollout?: 'streaming' | 'sync';
  /** Weights versions a group may lag behind the update (rollouts overlap learning when > 0; streaming only). @default 0 */
  readonly maxStaleness?: number;
  /** Progress bar on a terminal. @default false */
  readonly progress?: boolean;
  /** Further Trainer options (KL, rollout correction, dynamic sampling, overlong, schedule…), spread over the recipe's. */
  readonly algorithms?: Partial<Pick<TrainerOptions, 'kl' | 'rolloutCorrection' | 'dynamicSampling' | 'overlong' | 'updatesPerBatch' | 'distill' | 'loss'>> & {
    readonly schedule?: NonNullable<TrainerOptions['optimizer']>['schedule'];
  };
  /** More places the run's record goes (e.g. `wandbSink` from `--wandb <project>`), beside metrics.jsonl. */
  readonly sinks?: TrainerOptions['sinks'];
  /** Called after each step with its number and metrics (`reward/mean`, `rollout/tool_calls`, …). */
  readonly onStep?: (step: number, metrics: Readonly<Record<string, number>>) => void;
}

/** What differs between the examples. */
export interface RlTask {
  readonly env: Environment;
  readonly reward: Reward;
  readonly dataset: TrainerOptions['dataset'];
  readonly budgets: NonNullable<TrainerOptions['budgets']>;
  readonly sampling: NonNullable<TrainerOptions['sampling']>;
  /** The backend's context length, tokens (sizes the micro-batches). */
  readonly contextTokens: number;
}

/** `opts.algorithms` as Trainer options (the schedule goes into the recipe's optimizer). */
function algorithmOptions(opts: RlOptions, _task: RlTask): Partial<TrainerOptions> {
  const { schedule, ...rest } = opts.algorithms ?? {};
  return { ...rest, ...(schedule ? { optimizer: { learningRate: opts.learningRate, beta1: 0.9, beta2: 0.99, gradClipNorm: 1, schedule } } : {}) };
}

/** Trains `backend` (already holding the starting weights) on `task`; Ctrl-C stops after the current step. */
export async function trainWithRecipe(backend: TrainingBackend, task: RlTask, opts: RlOptions): Promise<TrainSummary> {
  const trainer = new Trainer({
    backend,
    env: task.env,
    reward: task.reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: task.dataset,
    groupSize: opts.groupSize,
    questionsPerBatch: opts.questionsPerBatch,
    maxSteps: opts.steps,
    budgets: task.budgets,
    sampling: task.sampling,
    optimizer: { learningRate: opts.learningRate, beta1: 0.9, beta2: 0.99, gradClipNorm: 1 },
    microBatch: { maxTokens: 16 * task.contextTokens, maxDatums: 16 },
    logDir: opts.logDir,
    seed: opts.seed,
    checkpointEvery: opts.checkpointEvery ?? 0,
    ...(opts.resume ? { resume: opts.resume } : {}),
    ...(opts.eval ? { eval: opts.eval } : {}),
    rollout: { streaming: (opts.rollout ?? 'streaming') === 'streaming' },
    async: { maxStaleness: opts.maxStaleness ?? 0 },
    progress: opts.progress ?? false,
    ...(opts.sinks ? { sinks: opts.sinks } : {}),
    ...algorithmOptions(opts, task),
  });
  trainer.on('warning', (w) => console.warn(`warning [${w.code}] ${w.message}`));
  if (opts.onStep) trainer.on('step', (m) => opts.onStep!(m.step, m.metrics));
  // Ctrl-C / SIGTERM: the step in flight ends, a checkpoint is written (with checkpointEvery > 0), and we say how to resume.
  const stop = () => trainer.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const summary = await trainer.train();
    if (summary.stopped && summary.lastCheckpoint)
      console.log(`stopped after step ${summary.steps}; resume with --log-dir ${opts.logDir} --resume ${opts.logDir}`);
    return summary;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** An example's RL task with its training split still on disk (`trainPath`, JSONL); the reward may hold resources (`close`). */
export interface RlTaskFiles extends Omit<RlTask, 'dataset'> {
  readonly trainPath: string;
}

/** Loads the training split and trains with {@link trainWithRecipe}; closes the environment and the reward afterwards, also on failure. */
export async function trainOnSplit(backend: TrainingBackend, task: RlTaskFiles, opts: RlOptions): Promise<TrainSummary> {
  const { trainPath, ...rest } = task;
  try {
    const dataset = await loadMathDataset(trainPath);
    return await trainWithRecipe(backend, { ...rest, dataset }, opts);
  } finally {
    await task.env.close?.();
    await (task.reward as { close?: () => Promise<void> }).close?.();
  }
}
