import { EventEmitter } from 'eventemitter3';
import { join } from 'node:path';
import type { Renderer } from '../chat/types.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { SamplingClient } from '../backend/types.js';
import { ConfigError } from '../errors/config-error.js';
import { runRollouts, type RolloutBudgets } from '../rollout/index.js';
import { buildDatums, groupAdvantages, isDegenerateGroup } from '../loss/index.js';
import { resolveTrainerOptions, type ResolvedTrainerOptions, type TrainerOptions } from './config.js';
import { samplingConsistencyIssues } from './sampling-consistency.js';
import { scoreGroups } from './score.js';
import type { TrainerEvents, WarningEvent } from './events.js';
import { rolloutMetrics } from './rollout-metrics.js';
import { jsonlSink, progressSink, type MetricsSink } from './metrics-sink.js';
import { batchIterator } from './batches.js';
import { trainOnDatums } from './train-step.js';
import { startRunLog } from './trajectory-log.js';
import { CheckpointStore } from './checkpoint-store.js';
import { findResumePoint, truncateRunLogs } from './resume.js';
import { evaluate } from '../eval/evaluate.js';
import { StepWarnings } from './step-warnings.js';

/** What `trainer.train()` resolves with. */
export interface TrainSummary {
  /** Steps completed. */
  readonly steps: number;
  /** True when `stop()` ended training before `maxSteps`. */
  readonly stopped: boolean;
  /** Metrics of the last step. */
  readonly lastMetrics: Readonly<Record<string, number>>;
  /** Per-step history of `reward/mean`. */
  readonly rewardHistory: readonly number[];
  readonly wallS: number;
  /** Path of the last checkpoint, when one was written. */
  readonly lastCheckpoint?: string;
  /** The step the run resumed after (`resume` option), when it resumed from a checkpoint. */
  readonly resumedFromStep?: number;
}

interface ScoredGroup {
  example: Example;
  trajectories: Trajectory[];
  rewards: (RewardResult & { shapeWarning?: string })[];
  advantages: number[];
  degenerate: boolean;
  /** The whole group is left out of training (too few survivors). */
  droppedGroup: boolean;
}

/**
 * The RL loop (ReTool seed §8.4.7): per step, refresh the sampler from the current weights, roll out
 * `questionsPerBatch × groupSize` trajectories, score them, compute group advantages, skip degenerate
 * groups, build datums, run micro-batched `forwardBackward` and one `optimStep`.
 *
 * The whole configuration is validated in the constructor (zod), before any rollout, including whether the
 * backend's learner can reproduce the sampling settings (`TrainingBackend.samplingSupport`).
 * Events (typed in {@link TrainerEvents}): `config`, `rollout:start`, `turn`, `trajectory`, `group`,
 * `rollout:end`, `step`, `eval` (with `eval` options), `checkpoint`, `warning`.
 *
 * One bad trajectory never ends a run: a trajectory that fails (`stopReason: 'error'`), a reward that throws or
 * runs past `rewardTimeoutMs` drop that sample with its cause (a `warning` event, `rollout/error_rate`,
 * `reward/dropped`); a group with fewer than `rollout.failure.minSurvivors` survivors is dropped whole. Only
 * `rollout.failure: { kind: 'fail_fast' }` (or `rollout.prefixMismatch: 'fail'`) makes `train()` reject, with
 * `RolloutFailedError`, after every rollout of the step has ended.
 *
 * @throws ConfigError from the constructor, listing every invalid option with its dotted path.
 * @example
 * ```ts
 * const trainer = new Trainer({ backend: localBackend(), env, reward: mathReward(), loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, dataset });
 * trainer.on('step', (e) => console.log(e.step, e.metrics['reward/mean']));
 * await trainer.train();
 * ```
 */
export class Trainer extends EventEmitter<TrainerEvents> {
  /** The validated options with defaults filled in. */
  readonly options: ResolvedTrainerOptions;
  #stopRequested = false;
  #abort = new AbortController();
  #running = false;
  #warnings: StepWarnings | undefined;

  constructor(opts: TrainerOptions) {
    super();
    this.options = fitDefaultBudgets(resolveTrainerOptions(opts), opts.budgets ?? {});
    const issues = samplingConsistencyIssues(this.options.backend, this.options.sampling);
    if (issues.length > 0) throw new ConfigError('Trainer options', issues);
  }

  /** Ends training cleanly after the current step. */
  stop(): void {
    this.#stopRequested = true;
  }

  /**
   * Aborts the current step as soon as possible: sampling calls and tool calls in flight get the abort signal,
   * rewards in flight are no longer awaited, trajectories end with `aborted`, the step is not trained on, and
   * `train()` resolves with `stopped: true`.
   */
  abort(): void {
    this.#stopRequested = true;
    this.#abort.abort();
  }

  /**
   * Runs the loop until `maxSteps` steps are done (counting the steps of a resumed run), or until `stop()` /
   * `abort()`. With `resume`, weights, optimizer state, the step number and the data order continue from the
   * checkpoint, and `metrics.jsonl` / `trajectories.jsonl` keep only the rows up to it (no duplicate or missing step).
   * After `stop()`, a checkpoint of the last completed step is written when checkpoints are on.
   * @throws CheckpointError when `resume` names a folder without a checkpoint, or a checkpoint cannot be written.
   */
  async train(): Promise<TrainSummary> {
    if (this.#running) throw new Error('train() is already running');
    this.#running = true;
    const o = this.options;
    const t0 = performance.now();
    this.emit('config', o);
    const sinks: MetricsSink[] = [];
    const detach: (() => void)[] = [];
    let stopTrajectoryLog: (() => Promise<void>) | undefined;
    const store = o.logDir && o.checkpointEvery > 0 ? new CheckpointStore(join(o.logDir, 'checkpoints'), o.checkpointKeepLast) : undefined;
    const batches = batchIterator(o.dataset, o.questionsPerBatch, { shuffle: o.shuffle, seed: o.seed });
    let lastMetrics: Record<string, number> = {};
    const rewardHistory: number[] = [];
    let lastCheckpoint: string | undefined;
    let resumedFromStep: number | undefined;
    let step = 0;
    let savedStep = -1;
    const checkpoint = async () => {
      if (!store || savedStep === step) return;
      const ref = await store.save({ step, batchesConsumed: step, seed: o.seed, weightsVersion: step }, (dir) => o.backend.saveState(dir));
      savedStep = step;
      lastCheckpoint = ref.dir;
      this.emit('checkpoint', { step, path: ref.dir });
    };
    try {
      const resumed = o.resume ? await findResumePoint(o.resume, o.logDir) : undefined;
      if (resumed) {
        await o.backend.loadState(join(resumed.dir, 'backend'));
        step = savedStep = resumedFromStep = resumed.state.step;
        for (let i = 0; i < resumed.state.batchesConsumed; i++) batches.next();
        if (o.logDir) await truncateRunLogs(o.logDir, step);
      }
      if (o.logDir) sinks.push(jsonlSink(join(o.logDir, 'metrics.jsonl')));
      if (o.progress === true || (o.progress === 'auto' && process.stderr.isTTY)) {
        const sink = progressSink({ maxSteps: o.maxSteps });
        sinks.push(sink);
        const onWarning = (e: WarningEvent) => sink.warning?.(e);
        this.on('warning', onWarning);
        detach.push(() => this.off('warning', onWarning));
      }
      const renderer = await o.backend.renderer();
      if (o.logDir) stopTrajectoryLog = await startRunLog(this, o.logDir, o, renderer);
      const budgets = this.#effectiveBudgets();
      this.#warnings = new StepWarnings({ envName: o.env.name, toolNames: o.env.tools.map((t) => t.function.name), budgets });
      while (step < o.maxSteps && !this.#stopRequested) {
        const metrics = await this.#step(step + 1, batches.next().value as Example[], renderer, budgets);
        if (metrics === undefined) break; // aborted: the step is not counted
        step++;
        lastMetrics = { ...metrics, ...(await this.#evalIfDue(step, renderer, budgets)) };
        rewardHistory.push(lastMetrics['reward/mean'] ?? 0);
        for (const s of sinks) await s.write({ step, ...lastMetrics });
        this.emit('step', { step, metrics: lastMetrics });
        if (step % o.checkpointEvery === 0 || step === o.maxSteps) await checkpoint();
      }
      if (this.#stopRequested && !this.#abort.signal.aborted) await checkpoint();
    } finally {
      for (const d of detach) d();
      for (const s of sinks) await s.close?.();
      await stopTrajectoryLog?.();
      this.#running = false;
    }
    return {
      steps: step,
      stopped: step < o.maxSteps,
      lastMetrics,
      rewardHistory,
      wallS: (performance.now() - t0) / 1000,
      ...(lastCheckpoint ? { lastCheckpoint } : {}),
      ...(resumedFromStep !== undefined ? { resumedFromStep } : {}),
    };
  }

  /** Runs `evaluate()` on `eval.dataset` after every `eval.every` steps; emits `eval` and returns its `eval/*` metrics. */
  async #evalIfDue(step: number, renderer: Renderer, budgets: RolloutBudgets): Promise<Record<string, number>> {
    const e = this.options.eval;
    if (!e || step % e.every !== 0) return {};
    const o = this.options;
    const t = performance.now();
    let result;
    try {
      result = await evaluate({
      sampler: await o.backend.saveWeightsForSampler(),
      renderer,
      env: o.env,
      reward: o.reward,
      examples: e.dataset,
      n: e.samples,
      sampling: { ...o.sampling, seed: o.seed * 1_000_003 + 999_983 },
      budgets,
      concurrency: e.concurrency,
      maxContextTokens: o.backend.maxContextTokens,
      rewardTimeoutMs: o.rewardTimeoutMs,
        signal: this.#abort.signal,
        ...(o.templateKwargs ? { templateKwargs: o.templateKwargs } : {}),
      });
    } catch (err) {
      if (this.#abort.signal.aborted) return {}; // abort() ends train() promptly, mid-eval too
      throw err;
    }
    const metrics = { ...result.metrics, 'time/eval_s': (performance.now() - t) / 1000 };
    this.emit('eval', { step, metrics });
    return metrics;
  }

  /** The budgets, with `maxTrajectoryTokens` capped at the backend's context (warns when it had to cap). */
  #effectiveBudgets(): RolloutBudgets {
    const b = this.options.budgets;
    const context = this.options.backend.maxContextTokens;
    if (b.maxTrajectoryTokens <= context) return b;
    this.emit('warning', {
      code: 'budget_capped',
      message: `budgets.maxTrajectoryTokens ${b.maxTrajectoryTokens} exceeds the backend's context of ${context} tokens; using ${context}`,
    });
    return { ...b, maxTrajectoryTokens: context };
  }

  /** One step: rollout → score → advantages → update. `undefined` when the step was aborted (no update). */
  async #step(step: number, examples: Example[], renderer: Renderer, budgets: RolloutBudgets): Promise<Record<string, number> | undefined> {
    const tRollout = performance.now();
    const sampler = await this.options.backend.saveWeightsForSampler();
    const groups_P = await this.#rollout(step, sampler, examples, renderer, budgets);
    if (this.#abort.signal.aborted) return undefined;
    const rewards_P = await scoreGroups(this.options.reward, groups_P, { timeoutMs: this.options.rewardTimeoutMs, signal: this.#abort.signal });
    if (this.#abort.signal.aborted) return undefined;
    const scored = examples.map((example, p) => this.#scoreGroup(step, example, groups_P[p]!, rewards_P[p]!));
    this.#warnFailures(step, scored);
    for (const w of this.#warnings?.check(step, scored) ?? []) this.emit('warning', w);
    const rollMetrics = { ...rolloutMetrics(scored), 'rollout/dropped_group_rate': rate(scored.filter((g) => g.droppedGroup).length, scored.length) };
    const rolloutS = (performance.now() - tRollout) / 1000;
    this.emit('rollout:end', { step, trajectories: scored.reduce((n, g) => n + g.trajectories.length, 0), metrics: rollMetrics });

    const tTrain = performance.now();
    const optim = await this.#update(step, scored);
    return { ...rollMetrics, ...optim, 'time/rollout_s': rolloutS, 'time/train_s': (performance.now() - tTrain) / 1000 };
  }

  /** Rolls out every group of the step with the configured failure strategy (rejects only under fail-fast). */
  #rollout(step: number, sampler: SamplingClient, examples: Example[], renderer: Renderer, budgets: RolloutBudgets): Promise<Trajectory[][]> {
    const o = this.options;
    this.emit('rollout:start', { step, groups: examples.length, groupSize: o.groupSize });
    return runRollouts(
      {
        sampler,
        renderer,
        env: o.env,
        budgets,
        sampling: { ...o.sampling, seed: o.seed * 1_000_003 + step },
        failure: o.rollout.failure,
        prefixMismatch: o.rollout.prefixMismatch,
        ...(o.rollout.trajectoryTimeoutMs !== undefined ? { trajectoryTimeoutMs: o.rollout.trajectoryTimeoutMs } : {}),
        ...(o.rollout.maxConcurrentGroups !== undefined ? { maxConcurrentGroups: o.rollout.maxConcurrentGroups } : {}),
        signal: this.#abort.signal,
        onTurn: (e) => this.emit('turn', { ...e, step }),
        ...(o.templateKwargs ? { templateKwargs: o.templateKwargs } : {}),
      },
      examples,
      o.groupSize,
    );
  }

  /** Advantages of one group over its surviving samples; emits its `trajectory` and `group` events. */
  #scoreGroup(step: number, example: Example, trajectories: Trajectory[], rewards: RewardResult[]): ScoredGroup {
    const o = this.options;
    trajectories.forEach((trajectory, g) => this.emit('trajectory', { step, trajectory, reward: rewards[g]! }));
    const kept = rewards.map((r) => !r.drop);
    const survivors = kept.filter(Boolean).length;
    const minSurvivors = o.rollout.failure.kind === 'fail_fast' ? 1 : (o.rollout.failure.minSurvivors ?? 1);
    const droppedGroup = survivors < minSurvivors || survivors === 0;
    const keptRewards = rewards.filter((_, g) => kept[g]).map((r) => r.reward);
    const degenerate = !droppedGroup && isDegenerateGroup(keptRewards);
    const keptAdv = droppedGroup ? [] : groupAdvantages(keptRewards, { normalize: o.advantage.normalize });
    let k = 0;
    const advantages = kept.map((isKept) => (isKept && !droppedGroup ? keptAdv[k++]! : 0));
    const dropped = kept.length - survivors;
    this.emit('group', { step, exampleId: example.id, rewards: rewards.map((r) => r.reward), advantages, degenerate, dropped });
    return { example, trajectories, rewards, advantages, degenerate, droppedGroup };
  }

  /** One `warning` per kind of failure of the step (failed rollouts, dropped samples, dropped groups). */
  #warnFailures(step: number, scored: readonly ScoredGroup[]): void {
    const all = scored.flatMap((g) => g.trajectories.map((t, i) => ({ t, r: g.rewards[i]! })));
    const errors = all.filter(({ t }) => t.stopReason === 'error');
    if (errors.length > 0) {
      const first = errors[0]!.t;
      this.emit('warning', {
        step,
        code: 'rollout_error',
        message: `${errors.length} of ${all.length} trajectories failed and were dropped; first: ${first.id}${first.error?.env ? ` in env '${first.error.env}'` : ''}${first.error?.turn ? ` at turn ${first.error.turn}` : ''} (${first.error?.stage}): ${first.error?.message}`,
      });
    }
    const rewardDrops = all.filter(({ t, r }) => r.drop && t.stopReason !== 'error');
    if (rewardDrops.length > 0) {
      const first = rewardDrops[0]!;
      this.emit('warning', {
        step,
        code: 'dropped_samples',
        message: `${rewardDrops.length} sample(s) dropped by the reward; first: ${first.t.id}: ${first.r.failure ?? 'drop'}${first.r.cause ? ` (${first.r.cause})` : ''}`,
      });
    }
    const groups = scored.filter((g) => g.droppedGroup);
    if (groups.length > 0) {
      this.emit('warning', {
        step,
        code: 'dropped_groups',
        message: `${groups.length} group(s) dropped with too few surviving trajectories: ${groups.map((g) => g.example.id).join(', ')}`,
      });
    }
  }

  /** Builds datums from the trainable samples and runs one optimizer step. */
  async #update(step: number, scored: readonly ScoredGroup[]): Promise<Record<string, number>> {
    const o = this.options;
    const train = scored.filter((g) => !g.droppedGroup && !(o.skipDegenerateGroups && g.degenerate));
    const trainable = (g: ScoredGroup, i: number) => !g.rewards[i]!.drop && g.trajectories[i]!.turns.length > 0;
    const trajs = train.flatMap((g) => g.trajectories.filter((_, i) => trainable(g, i)));
    const advs = train.flatMap((g) => g.advantages.filter((_, i) => trainable(g, i)));
    const { datums } = buildDatums(trajs, advs, { skipZeroAdvantage: o.skipDegenerateGroups });
    if (datums.length === 0) this.emit('warning', { step, code: 'no_datums', message: 'every group was degenerate or dropped: no update this step' });
    return trainOnDatums(o.backend, datums, {
      loss: o.loss,
      optimizer: o.optimizer,
      maxTokensPerBatch: o.microBatch.maxTokens,
      maxDatumsPerBatch: o.microBatch.maxDatums,
      sampling: o.sampling,
    });
  }
}

const rate = (n: number, d: number): number => (d > 0 ? n / d : 0);

/**
 * Budgets the user did not set default within the backend's context: `maxTrajectoryTokens` and `maxTurnTokens`
 * to at most `backend.maxContextTokens`, `maxToolResponseTokens` to at most a quarter of it. Budgets the user set
 * are kept as given (one over the context is capped with a `budget_capped` warning at the start of `train()`).
 */
function fitDefaultBudgets(o: ResolvedTrainerOptions, given: Partial<Record<keyof RolloutBudgets, unknown>>): ResolvedTrainerOptions {
  const context = o.backend.maxContextTokens;
  const b = { ...o.budgets };
  if (given.maxTrajectoryTokens === undefined) b.maxTrajectoryTokens = Math.min(b.maxTrajectoryTokens, context);
  if (given.maxTurnTokens === undefined) b.maxTurnTokens = Math.min(b.maxTurnTokens, b.maxTrajectoryTokens);
  if (given.maxToolResponseTokens === undefined) b.maxToolResponseTokens = Math.min(b.maxToolResponseTokens, Math.max(1, Math.floor(context / 4)));
  return { ...o, budgets: b };
}
