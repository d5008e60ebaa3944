import { EventEmitter } from 'eventemitter3';
import { join } from 'node:path';
import type { Renderer } from '../chat/types.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { runRollouts, type RolloutBudgets } from '../rollout/index.js';
import { buildDatums, groupAdvantages, isDegenerateGroup } from '../loss/index.js';
import { resolveTrainerOptions, type ResolvedTrainerOptions, type TrainerOptions } from './config.js';
import type { TrainerEvents } from './events.js';
import { rolloutMetrics } from './rollout-metrics.js';
import { jsonlSink, progressSink, type MetricsSink } from './metrics-sink.js';
import { batchIterator } from './batches.js';
import { trainOnDatums } from './train-step.js';
import { startRunLog } from './trajectory-log.js';

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
}

interface ScoredGroup {
  example: Example;
  trajectories: Trajectory[];
  rewards: RewardResult[];
  advantages: number[];
  degenerate: boolean;
}

/**
 * The RL loop (ReTool seed §8.4.7): per step, refresh the sampler from the current weights, roll out
 * `questionsPerBatch × groupSize` trajectories, score them, compute group advantages, skip degenerate
 * groups, build datums, run micro-batched `forwardBackward` and one `optimStep`.
 *
 * The whole configuration is validated in the constructor (zod), before any rollout.
 * Events (typed in {@link TrainerEvents}): `config`, `rollout:start`, `turn`, `trajectory`, `group`,
 * `rollout:end`, `step`, `checkpoint`, `warning`.
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

  constructor(opts: TrainerOptions) {
    super();
    this.options = resolveTrainerOptions(opts);
  }

  /** Ends training cleanly after the current step. */
  stop(): void {
    this.#stopRequested = true;
  }

  /** Aborts the current rollout as soon as possible (trajectories end with `aborted`), then stops. */
  abort(): void {
    this.#stopRequested = true;
    this.#abort.abort();
  }

  /** Runs the loop for `maxSteps` steps (or until `stop()`). */
  async train(): Promise<TrainSummary> {
    if (this.#running) throw new Error('train() is already running');
    this.#running = true;
    const o = this.options;
    const t0 = performance.now();
    this.emit('config', o);
    const renderer = await o.backend.renderer();
    const budgets = this.#effectiveBudgets();
    const sinks: MetricsSink[] = [];
    if (o.logDir) sinks.push(jsonlSink(join(o.logDir, 'metrics.jsonl')));
    const stopTrajectoryLog = o.logDir ? await startRunLog(this, o.logDir, o, renderer) : undefined;
    if (o.progress === true || (o.progress === 'auto' && process.stderr.isTTY)) sinks.push(progressSink({ maxSteps: o.maxSteps }));
    const batches = batchIterator(o.dataset, o.questionsPerBatch, { shuffle: o.shuffle, seed: o.seed });
    let lastMetrics: Record<string, number> = {};
    const rewardHistory: number[] = [];
    let lastCheckpoint: string | undefined;
    let step = 0;
    try {
      while (step < o.maxSteps && !this.#stopRequested) {
        step++;
        lastMetrics = await this.#step(step, batches.next().value as Example[], renderer, budgets);
        rewardHistory.push(lastMetrics['reward/mean'] ?? 0);
        for (const s of sinks) await s.write({ step, ...lastMetrics });
        this.emit('step', { step, metrics: lastMetrics });
        if (o.logDir && o.checkpointEvery > 0 && (step % o.checkpointEvery === 0 || step === o.maxSteps)) {
          lastCheckpoint = join(o.logDir, 'checkpoints', `step-${String(step).padStart(5, '0')}`);
          await o.backend.saveState(lastCheckpoint);
          this.emit('checkpoint', { step, path: lastCheckpoint });
        }
      }
    } finally {
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
    };
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

  async #step(step: number, examples: Example[], renderer: Renderer, budgets: RolloutBudgets): Promise<Record<string, number>> {
    const o = this.options;
    const tRollout = performance.now();
    const sampler = await o.backend.saveWeightsForSampler();
    this.emit('rollout:start', { step, groups: examples.length, groupSize: o.groupSize });
    const groups_P = await runRollouts(
      {
        sampler,
        renderer,
        env: o.env,
        budgets,
        sampling: { ...o.sampling, seed: o.seed * 1_000_003 + step },
        signal: this.#abort.signal,
        onTurn: (e) => this.emit('turn', { ...e, step }),
        ...(o.templateKwargs ? { templateKwargs: o.templateKwargs } : {}),
      },
      examples,
      o.groupSize,
    );
    const scored: ScoredGroup[] = [];
    for (let p = 0; p < examples.length; p++) {
      const trajectories = groups_P[p]!;
      const rewards = await Promise.all(trajectories.map((t) => o.reward(t, examples[p]!)));
      trajectories.forEach((trajectory, g) => this.emit('trajectory', { step, trajectory, reward: rewards[g]! }));
      const kept = rewards.map((r) => !r.drop);
      const keptRewards_G = rewards.filter((_, g) => kept[g]).map((r) => r.reward);
      const degenerate = isDegenerateGroup(keptRewards_G);
      const keptAdv = groupAdvantages(keptRewards_G, { normalize: o.advantage.normalize });
      let k = 0;
      const advantages_G = kept.map((isKept) => (isKept ? keptAdv[k++]! : 0));
      const dropped = kept.filter((x) => !x).length;
      scored.push({ example: examples[p]!, trajectories, rewards, advantages: advantages_G, degenerate });
      this.emit('group', { step, exampleId: examples[p]!.id, rewards: rewards.map((r) => r.reward), advantages: advantages_G, degenerate, dropped });
      if (dropped > 0) this.emit('warning', { step, code: 'dropped_samples', message: `${dropped} sample(s) of ${examples[p]!.id} dropped: ${rewards.find((r) => r.drop)?.failure ?? 'drop'}` });
    }
    const rollMetrics = rolloutMetrics(scored);
    const rolloutS = (performance.now() - tRollout) / 1000;
    this.emit('rollout:end', { step, trajectories: scored.reduce((n, g) => n + g.trajectories.length, 0), metrics: rollMetrics });

    const tTrain = performance.now();
    const train = scored.filter((g) => !(o.skipDegenerateGroups && g.degenerate));
    const trajs = train.flatMap((g) => g.trajectories.filter((t, i) => !g.rewards[i]!.drop && t.turns.length > 0));
    const advs = train.flatMap((g) => g.advantages.filter((_, i) => !g.rewards[i]!.drop && g.trajectories[i]!.turns.length > 0));
    const { datums } = buildDatums(trajs, advs, { skipZeroAdvantage: o.skipDegenerateGroups });
    if (datums.length === 0) this.emit('warning', { step, code: 'no_datums', message: 'every group was degenerate or dropped: no update this step' });
    const optim = await trainOnDatums(o.backend, datums, {
      loss: o.loss,
      optimizer: o.optimizer,
      maxTokensPerBatch: o.microBatch.maxTokens,
      maxDatumsPerBatch: o.microBatch.maxDatums,
    });
    return { ...rollMetrics, ...optim, 'time/rollout_s': rolloutS, 'time/train_s': (performance.now() - tTrain) / 1000 };
  }
}
