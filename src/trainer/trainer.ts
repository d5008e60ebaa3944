import { EventEmitter } from 'eventemitter3';
import { join, relative, resolve } from '../platform/path.js';
import { allowManyAbortListeners, stderrIsTTY } from '../platform/host.js';
import type { Example } from '../types/example.js';
import type { Renderer } from '../chat/types.js';
import { ConfigError } from '../errors/config-error.js';
import { TrainerBusyError } from '../errors/trainer-errors.js';
import type { RolloutBudgets } from '../rollout/index.js';
import { minSurvivorsOf } from '../rollout/failure-strategy.js';
import { assembleTrainingData, groupOutcome, type GroupOutcome } from '../loss/index.js';
import type { TrainerOptions } from './options.js';
import { resolveTrainerOptions, type ResolvedTrainerOptions } from './resolved-options.js';
import { entropyBonusIssues, samplingConsistencyIssues } from './sampling-consistency.js';
import { backendOptionFacts, refusedOptionIssues } from './backend-options.js';
import type { TrajectoryEvent, WarningEvent } from './events.js';
import type { TrainerEvents } from './trainer-events.js';
import { perEnvironmentMetrics, rolloutMetrics } from '../eval/rollout-metrics.js';
import { jsonlSink, progressSink, type MetricsSink } from './metrics-sink.js';
import { applyStepAlgorithms, type StepAlgorithms } from './step-algorithms.js';
import { trainBatch } from './minibatch-updates.js';
import { isInformativeGroup, overlongPenalty, responseTokens } from '../loss/index.js';
import type { Trajectory } from '../types/trajectory.js';
import { attachSinks } from './attach-sinks.js';
import { guardSink } from './guarded-sink.js';
import { describeConfig, startRunLog } from './trajectory-log.js';
import { CheckpointStore, checkpointDirFor } from './checkpoint-store.js';
import { findResumePoint, saveKlReference, truncateRunLogs } from './resume.js';
import { reportAborted, type BatchSource, type ReadyGroup, type StepBatch } from './batch-source.js';
import { batchSourceFor } from './choose-batch-source.js';
import { DEFAULT_EVAL_SEED, evaluate } from '../eval/evaluate.js';
import { StepWarnings } from './step-warnings.js';
import type { RewardResult } from '../types/reward.js';
import type { OptionVerdict, SamplingClient } from '../backend/types.js';

/** The reward of an aborted step's trajectory that was not scored before the abort. */
const ABORTED: RewardResult = { reward: 0, correct: false, validFormat: false, failure: 'aborted', drop: true, cause: 'the step was aborted before scoring' };

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
  /** Wall time of `train()` in seconds. */
  readonly wallS: number;
  /** Path of the last checkpoint, when one was written. */
  readonly lastCheckpoint?: string;
  /** The step the run resumed after (`resume` option), when it resumed from a checkpoint. */
  readonly resumedFromStep?: number;
}

/** A group of the step with its outcome (survivors, advantages, degenerate, dropped). */
interface ScoredGroup extends ReadyGroup {
  readonly outcome: GroupOutcome;
  /** Per member, DAPO's soft overlong penalty added to its reward (≤ 0); absent when the soft penalty is not configured. */
  readonly overlongPenalties_G?: readonly number[];
}

/**
 * The RL loop (the ReTool recipe's, KMnO4-zx/agentic-rl-lab `05-retool/train.py`): per step, take `questionsPerBatch`
 * scored groups, compute group advantages, skip
 * degenerate groups, build datums, run micro-batched `forwardBackward` and one `optimStep`, then sample later groups
 * from the new weights.
 *
 * Where the groups come from: by default they stream (`rollout.streaming`): each trajectory is scored as soon as it
 * ends and a step trains on the first ready groups, with at most `rollout.maxConcurrentTrajectories` in flight; with
 * `async.maxStaleness: k > 0` rollouts for the next k steps continue while the learner trains, and groups sampled more
 * than k weights versions ago are dropped (`rollout/stale_dropped`). `rollout.streaming: false` is the
 * round-synchronous loop. See docs/metrics.md, "Rollout pipeline".
 *
 * The whole configuration is validated in the constructor (zod), before any rollout, including whether the
 * backend's learner can reproduce the sampling settings (`TrainingBackend.samplingSupport`).
 * Events (typed in {@link TrainerEvents}): `config`, `rollout:start`, `turn`, `trajectory`, `group`,
 * `rollout:end`, `step`, `eval` (with `eval` options), `checkpoint`, `warning`.
 *
 * One bad trajectory never ends a run: a trajectory that fails (`stopReason: 'error'`), a reward that throws or
 * runs past `rewardTimeoutMs` drop that sample with its cause (a `warning` event, `rollout/error_rate`,
 * `reward/dropped`); a group with fewer than `rollout.failure.minSurvivors` survivors is dropped whole. Only
 * `rollout.failure: { kind: 'fail_fast' }` (or `onPrefixMismatch: 'fail'`) makes `train()` reject, with
 * `RolloutFailedError`, after every rollout of the step has ended.
 * `onPrefixMismatch` is the policy for a chat template that rewrites history (the next prompt cannot extend the
 * sampled tokens): `'drop'` the trajectory (default, warned and counted), `'split'` it into one datum per extending
 * run of turns (the prompt is re-rendered), or `'fail'`.
 *
 * @throws ConfigError from the constructor, listing every invalid option with its dotted path.
 * @example
 * ```ts
 * const trainer = new Trainer({ backend: localBackend(), env, reward: mathReward(), loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 }, dataset });
 * trainer.on('step', (e) => console.log(e.step, e.metrics['reward/mean']));
 * await trainer.train();
 * ```
 */
export class Trainer<E extends Example = Example> extends EventEmitter<TrainerEvents> {
  /** The validated options with defaults filled in. */
  readonly options: ResolvedTrainerOptions;
  #stopRequested = false;
  #abort = new AbortController();
  #running = false;
  #warnings: StepWarnings | undefined;
  #algorithms: StepAlgorithms = { overlongFilter: false };
  #maxTrajectoryTokens = 0;
  /** The backend's verdicts when its engine must be asked first (`tinkerBackend({ engine: 'auto' })`). */
  #backendVerdicts: Promise<readonly OptionVerdict[]> | undefined;
  /** Emits a trajectory of an aborted step (`aborted: true`; an unscored one gets {@link ABORTED}). */
  readonly #emitAborted = (step: number, trajectory: Trajectory, reward: RewardResult | undefined): void => {
    this.emit('trajectory', { step, trajectory, reward: reward ?? ABORTED, aborted: true });
  };

  /** Validates `opts` (zod) and the backend's sampling support before any work. @throws ConfigError listing every invalid option with its dotted path. */
  constructor(opts: TrainerOptions<E>) {
    super();
    this.options = resolveTrainerOptions(opts);
    allowManyAbortListeners(this.#abort.signal); // every rollout and reward in flight listens to it
    const issues = [...samplingConsistencyIssues(this.options.backend, this.options.sampling), ...entropyBonusIssues(this.options.backend, this.options)];
    // The backend's engine checks every option it depends on: now when it knows its engine, else at train() start.
    const verdicts = this.options.backend.checkOptions?.(backendOptionFacts(this.options));
    if (verdicts instanceof Promise) {
      verdicts.catch(() => undefined); // awaited (and thrown) by train()
      this.#backendVerdicts = verdicts;
    } else if (verdicts) issues.push(...refusedOptionIssues(this.options.backend, verdicts));
    if (issues.length > 0) throw new ConfigError('Trainer options', issues);
  }

  /** Ends training cleanly after the current step. */
  stop(): void {
    this.#stopRequested = true;
  }

  /**
   * Aborts the current step as soon as possible: sampling calls and tool calls in flight get the abort signal,
   * rewards in flight are no longer awaited, trajectories end with `aborted`, the step is not trained on, and
   * `train()` resolves with `stopped: true`. Before it resolves, every trajectory of the aborted step is emitted as a
   * `trajectory` event with `aborted: true` (see {@link TrajectoryEvent}), so a listener sees how the step ended.
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
   * @throws TrainerBusyError when this Trainer's `train()` is still running.
   */
  async train(): Promise<TrainSummary> {
    if (this.#running) throw new TrainerBusyError();
    this.#running = true;
    const o = this.options;
    const t0 = performance.now();
    this.emit('config', o);
    const sinks: MetricsSink[] = [];
    const detach: (() => void)[] = [];
    let stopTrajectoryLog: (() => Promise<void>) | undefined;
    const store = o.logDir && o.checkpointEvery > 0 ? new CheckpointStore(join(o.logDir, 'checkpoints'), o.checkpointKeepLast) : undefined;
    let lastMetrics: Record<string, number> = {};
    const rewardHistory: number[] = [];
    let lastCheckpoint: string | undefined;
    let resumedFromStep: number | undefined;
    let step = 0;
    let savedStep = -1;
    let source: BatchSource | undefined;
    /** Absolute folder of the saved `kl.reference: 'base'` weights, once known. */
    let klReferenceDir: string | undefined;
    const checkpoint = async () => {
      if (!store || savedStep === step) return;
      const state = {
        step,
        batchesConsumed: step,
        examplesConsumed: source?.examplesConsumed() ?? step * o.questionsPerBatch,
        seed: o.seed,
        weightsVersion: step,
        ...(klReferenceDir ? { klReference: relative(checkpointDirFor(store.root, step), klReferenceDir) } : {}),
      };
      const ref = await store.save(state, (dir) => o.backend.saveState(dir));
      savedStep = step;
      lastCheckpoint = ref.dir;
      this.emit('checkpoint', { step, path: ref.dir });
    };
    try {
      if (this.#backendVerdicts) {
        const refused = refusedOptionIssues(o.backend, await this.#backendVerdicts);
        if (refused.length > 0) throw new ConfigError('Trainer options', refused);
      }
      const resumed = o.resume ? await findResumePoint(o.resume, o.logDir) : undefined;
      let startAt = 0;
      let klBase: SamplingClient | undefined;
      if (resumed && o.kl?.reference === 'base') {
        if (resumed.state.klReference !== undefined) {
          // The original base weights: load them alone, publish a frozen sampler, then load the checkpoint itself.
          klReferenceDir = resolve(resumed.dir, resumed.state.klReference);
          await o.backend.loadState(join(klReferenceDir, 'backend'), { optimizer: false });
          klBase = await o.backend.saveWeightsForSampler();
        } else {
          this.emit('warning', {
            code: 'kl_reference_resumed',
            message: `checkpoint ${resumed.dir} does not record the base weights of kl.reference 'base' (written by an older version or a run without kl): the KL is to the resumed weights`,
          });
        }
      }
      if (resumed) {
        await o.backend.loadState(join(resumed.dir, 'backend'));
        step = savedStep = resumedFromStep = resumed.state.step;
        startAt = resumed.state.examplesConsumed ?? resumed.state.batchesConsumed * o.questionsPerBatch;
        if (o.logDir) await truncateRunLogs(o.logDir, step);
      }
      // The run's own sinks are guarded like a user's: a failing disk or terminal is a warning, never the run's end.
      const own = (sink: MetricsSink, label: string) => guardSink(sink, label, o.sinkLimits ?? {}, (e) => this.emit('warning', e));
      if (o.logDir) sinks.push(own(jsonlSink(join(o.logDir, 'metrics.jsonl')), 'metrics.jsonl sink'));
      if (o.progress === true || (o.progress === 'auto' && stderrIsTTY())) {
        const sink = progressSink({ maxSteps: o.maxSteps });
        sinks.push(own(sink, 'progress sink'));
        const onWarning = (e: WarningEvent) => sink.warning?.(e);
        this.on('warning', onWarning);
        detach.push(() => this.off('warning', onWarning));
      }
      const attached = attachSinks(this, o.sinks, describeConfig(o), o.sinkLimits ?? {});
      sinks.push(...attached.sinks);
      detach.push(attached.detach);
      const renderer = await o.backend.renderer();
      if (!resumed && store && o.kl?.reference === 'base') klReferenceDir = await saveKlReference(store.root, o.backend);
      this.#algorithms = await this.#resolveAlgorithms(klBase);
      if (o.logDir) stopTrajectoryLog = await startRunLog(this, o.logDir, o, renderer);
      const budgets = this.#effectiveBudgets();
      this.#maxTrajectoryTokens = budgets.maxTrajectoryTokens;
      this.#warnings = new StepWarnings({ envName: o.env.name, toolNames: o.env.tools.map((t) => t.function.name), budgets });
      // A before-training point of the eval curve (step 0), unless resuming past it; before any rollout starts.
      if (o.eval && step === 0 && !this.#stopRequested) {
        const before = await this.#evalIfDue(0, renderer, budgets);
        if (Object.keys(before).length > 0) for (const s of sinks) await s.write({ step: 0, ...before });
      }
      source = batchSourceFor(o, {
        renderer,
        budgets,
        startAt,
        weightsVersion: step,
        signal: this.#abort.signal,
        onTurn: (e) => this.emit('turn', e),
        onAborted: this.#emitAborted,
      });
      while (step < o.maxSteps && !this.#stopRequested) {
        const metrics = await this.#step(step + 1, source);
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
      await source?.close();
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

  /** Runs `evaluate()` on `eval.dataset` before the first update (step 0) and after every `eval.every` steps; emits `eval` and returns its `eval/*` metrics. */
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
        sampling: { ...o.sampling, seed: e.seed ?? DEFAULT_EVAL_SEED },
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

  /** One step: take a batch of scored groups → group outcomes → datums → update. `undefined` when aborted (no update). */
  async #step(step: number, source: BatchSource): Promise<Record<string, number> | undefined> {
    this.emit('rollout:start', { step, groups: this.options.questionsPerBatch, groupSize: this.options.groupSize });
    const drawn = await this.#drawBatch(step, source);
    if (drawn === undefined) return undefined;
    const { batch, scored } = drawn;
    this.#warnFailures(step, scored);
    const warned = scored.map((g) => ({
      trajectories: g.trajectories_G,
      rewards: g.rewards_G,
      degenerate: g.outcome.degenerate,
      droppedGroup: g.outcome.droppedGroup,
    }));
    for (const w of this.#warnings?.check(step, warned) ?? []) this.emit('warning', w);
    const rollMetrics = this.#rolloutEnd(step, scored, batch);
    const tTrain = performance.now();
    const optim = await this.#update(step, scored);
    await source.weightsUpdated(step);
    return { ...rollMetrics, ...optim, 'time/rollout_s': batch.metrics['time/learner_idle_s'] ?? 0, 'time/train_s': (performance.now() - tTrain) / 1000 };
  }

  /**
   * `kl.reference: 'base'` becomes `klBase` (the original base weights restored on resume) or else a sampler of the
   * weights as `train()` starts (frozen: later updates make new weights).
   */
  async #resolveAlgorithms(klBase: SamplingClient | undefined): Promise<StepAlgorithms> {
    const o = this.options;
    const kl = o.kl ? { ...o.kl, reference: o.kl.reference === 'base' ? (klBase ?? (await o.backend.saveWeightsForSampler())) : o.kl.reference } : undefined;
    return {
      ...(kl ? { kl } : {}),
      ...(o.distill ? { distill: o.distill } : {}),
      ...(o.rolloutCorrection ? { rolloutCorrection: o.rolloutCorrection } : {}),
      overlongFilter: o.overlong !== undefined && 'filter' in o.overlong && o.overlong.filter === true,
    };
  }

  /**
   * The step's scored groups. With `dynamicSampling` (DAPO), further batches are drawn while fewer than
   * `questionsPerBatch` groups are informative, up to `maxAttempts` batches; the step keeps the first
   * `questionsPerBatch` informative groups (all groups of the last attempt when it runs out). `undefined` when aborted.
   */
  async #drawBatch(step: number, source: BatchSource): Promise<{ batch: StepBatch; scored: ScoredGroup[] } | undefined> {
    const o = this.options;
    const maxAttempts = o.dynamicSampling?.maxAttempts ?? 1;
    const informative: ScoredGroup[] = [];
    const uninformative: ScoredGroup[] = [];
    let first: StepBatch | undefined;
    let attempts = 0;
    while (attempts < maxAttempts && informative.length < o.questionsPerBatch) {
      if (attempts > 0) source.refill?.();
      const batch = await source.nextBatch(step);
      if (batch === undefined) return undefined;
      if (this.#abort.signal.aborted) {
        reportAborted({ onAborted: this.#emitAborted }, step, batch.groups);
        return undefined;
      }
      first ??= batch;
      attempts++;
      for (const g of batch.groups.map((x) => this.#scoreGroup(step, x))) {
        const kept =
          o.dynamicSampling === undefined
            ? !g.outcome.degenerate && !g.outcome.droppedGroup
            : isInformativeGroup(
                g.rewards_G.map((r) => r.correct),
                g.outcome,
                o.dynamicSampling.metric,
              );
        (kept ? informative : uninformative).push(g);
      }
      if (o.dynamicSampling === undefined) break;
    }
    const firstSize = first!.groups.length;
    const scored =
      o.dynamicSampling === undefined ? [...informative, ...uninformative].sort((a, b) => a.seq - b.seq) : informative.slice(0, o.questionsPerBatch);
    if (o.dynamicSampling !== undefined && scored.length < o.questionsPerBatch) scored.push(...uninformative.slice(0, o.questionsPerBatch - scored.length));
    const metrics =
      o.dynamicSampling === undefined
        ? first!.metrics
        : {
            ...first!.metrics,
            'rollout/attempts': attempts,
            'rollout/refilled_groups': scored.filter((g) => !first!.groups.some((f) => f.seq === g.seq)).length,
            'rollout/informative_groups': Math.min(informative.length, o.questionsPerBatch),
            'rollout/first_batch_groups': firstSize,
          };
    return { batch: { groups: scored, metrics }, scored };
  }

  /** A group's outcome ({@link groupOutcome}); emits its `trajectory` and `group` events. DAPO's overlong penalty is added to the rewards first. */
  #scoreGroup(step: number, raw: ReadyGroup): ScoredGroup {
    const o = this.options;
    const ov = o.overlong;
    const soft = ov !== undefined && 'bufferTokens' in ov ? ov : undefined;
    const overlongPenalties_G =
      soft &&
      raw.trajectories_G.map((t) => overlongPenalty(responseTokens(t), soft.maxResponseTokens ?? this.#maxTrajectoryTokens, soft.bufferTokens, soft.penalty));
    const g: ReadyGroup = overlongPenalties_G
      ? { ...raw, rewards_G: raw.rewards_G.map((r, i) => ({ ...r, reward: r.reward + overlongPenalties_G[i]! })) }
      : raw;
    g.trajectories_G.forEach((trajectory, i) => {
      this.emit('trajectory', { step, trajectory, reward: g.rewards_G[i]! });
    });
    const outcome = groupOutcome(g.rewards_G, { minSurvivors: minSurvivorsOf(o.rollout.failure), normalize: o.advantage.normalize });
    const { advantages_G, degenerate, dropped } = outcome;
    this.emit('group', { step, exampleId: g.example.id, rewards: g.rewards_G.map((r) => r.reward), advantages: advantages_G, degenerate, dropped });
    return { ...g, outcome, ...(overlongPenalties_G ? { overlongPenalties_G } : {}) };
  }

  /** The step's rollout metrics (with the pipeline's); emits `rollout:end`. */
  #rolloutEnd(step: number, scored: readonly ScoredGroup[], batch: StepBatch): Record<string, number> {
    const metrics = {
      ...rolloutMetrics(scored.map((g) => ({ trajectories: g.trajectories_G, rewards: g.rewards_G, degenerate: g.outcome.degenerate }))),
      'rollout/dropped_group_rate': rate(scored.filter((g) => g.outcome.droppedGroup).length, scored.length),
      ...this.#overlongMetrics(scored),
      ...batch.metrics,
      ...this.#perEnvironment(scored),
    };
    this.emit('rollout:end', { step, trajectories: scored.reduce((n, g) => n + g.trajectories_G.length, 0), metrics });
    return metrics;
  }

  /**
   * `reward/overlong_penalty_mean`: the mean soft overlong penalty (≤ 0) over the step's scored samples (those the
   * rollout or the reward dropped excluded; 0 when none), emitted on every step when the soft penalty is configured.
   */
  #overlongMetrics(scored: readonly ScoredGroup[]): Record<string, number> {
    const o = this.options.overlong;
    if (o === undefined || !('bufferTokens' in o)) return {};
    const kept = scored.flatMap((g) => (g.overlongPenalties_G ?? []).filter((_, i) => g.outcome.kept_G[i]));
    return { 'reward/overlong_penalty_mean': kept.length > 0 ? kept.reduce((a, b) => a + b, 0) / kept.length : 0 };
  }

  /** `env/<name>/…` metrics when the environment is a mix (`env.envFor`); none otherwise. */
  #perEnvironment(scored: readonly ScoredGroup[]): Record<string, number> {
    const envFor = this.options.env.envFor?.bind(this.options.env);
    if (!envFor) return {};
    return perEnvironmentMetrics(
      scored.map((g) => ({ trajectories: g.trajectories_G, rewards: g.rewards_G, degenerate: g.outcome.degenerate, env: envFor(g.example).name })),
    );
  }

  /** One `warning` per kind of failure of the step (failed rollouts, dropped samples, dropped groups). */
  #warnFailures(step: number, scored: readonly ScoredGroup[]): void {
    const all = scored.flatMap((g) => g.trajectories_G.map((t, i) => ({ t, r: g.rewards_G[i]! })));
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
    const groups = scored.filter((g) => g.outcome.droppedGroup);
    if (groups.length > 0) {
      this.emit('warning', {
        step,
        code: 'dropped_groups',
        message: `${groups.length} group(s) dropped with too few surviving trajectories: ${groups.map((g) => g.example.id).join(', ')}`,
      });
    }
  }

  /** Builds datums from the trainable samples ({@link assembleTrainingData}) and runs one optimizer step. */
  async #update(step: number, scored: readonly ScoredGroup[]): Promise<Record<string, number>> {
    const o = this.options;
    const assembled = assembleTrainingData(
      scored.map((g) => ({ trajectories_G: g.trajectories_G, outcome: g.outcome })),
      { skipDegenerateGroups: o.skipDegenerateGroups && o.distill === undefined, onPrefixMismatch: o.onPrefixMismatch },
    );
    const { dropped } = assembled;
    if (dropped.length > 0) {
      const first = dropped[0]!;
      this.emit('warning', {
        step,
        code: 'prefix_mismatch',
        message: `${dropped.length} trajectory(ies) dropped: a prompt does not extend the tokens before it; first: ${first.source.id}: ${first.message}`,
      });
    }
    if (assembled.datums_D.length === 0)
      this.emit('warning', { step, code: 'no_datums', message: 'every group was degenerate or dropped: no update this step' });
    const prepared = await applyStepAlgorithms({
      backend: o.backend,
      datums_D: assembled.datums_D,
      sources_D: assembled.sources_D,
      loss: o.loss,
      algorithms: this.#algorithms,
      sampling: o.sampling,
      maxDatums: o.microBatch.maxDatums,
    });
    const optim = await trainBatch(o.backend, prepared.datums_D, {
      loss: prepared.loss,
      optimizer: o.optimizer,
      step,
      maxSteps: o.maxSteps,
      maxTokensPerBatch: o.microBatch.maxTokens,
      maxDatumsPerBatch: o.microBatch.maxDatums,
      sampling: o.sampling,
      minibatches: o.updatesPerBatch.minibatches,
      epochs: o.updatesPerBatch.epochs,
      ...(o.entropyBonus && o.entropyBonus.coef > 0 ? { entropyCoef: o.entropyBonus.coef } : {}),
    });
    return { ...prepared.metrics, ...optim };
  }
}

const rate = (n: number, d: number): number => (d > 0 ? n / d : 0);
