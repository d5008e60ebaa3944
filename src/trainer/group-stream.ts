import { allowManyAbortListeners } from '../platform/host.js';
import type { SamplingClient } from '../backend/types.js';
import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { rolloutFailedError } from '../errors/rollout-errors.js';
import { runGroup } from '../rollout/run-group.js';
import { failsTheCall } from '../rollout/failure-strategy.js';
import { RolloutAdmission, type AdmittedGroup } from '../rollout/admission.js';
import { batchSeed, reportAborted, type BatchSource, type BatchSourceOptions, type ReadyGroup, type StepBatch } from './batch-source.js';
import { scoreTrajectory } from '../reward/score-trajectories.js';
import { scoreFinishedGroup } from './score-group.js';

/** Options of {@link GroupStream} beyond {@link BatchSourceOptions}. */
export interface GroupStreamOptions extends BatchSourceOptions {
  /**
   * Weights versions a group may lag behind the update it is trained in (0: on-policy). Rollouts for up to
   * `maxStaleness` later steps run while the learner trains; older groups are dropped and counted.
   */
  readonly maxStaleness: number;
  /** The run's last step: no group is started for a step after it. @default unbounded */
  readonly maxSteps?: number;
}

/** Abort reason of the rollouts still in flight when the stream closes. */
class StreamClosed extends Error {
  constructor() {
    super('the group stream was closed');
    this.name = 'StreamClosed';
  }
}

/**
 * Streaming groups with bounded staleness (`rollout.streaming`, `async.maxStaleness`).
 *
 * A producer keeps rolling out groups, one example at a time in data order, with at most
 * `rollout.maxConcurrentTrajectories` trajectories and `rollout.maxConcurrentGroups` groups in flight; each trajectory is scored as soon as it ends, and a group is
 * ready when all its `groupSize` trajectories are scored. Step s trains on the first `questionsPerBatch` ready groups
 * (degenerate and dropped groups count, they are not waited for). The producer may run ahead of the learner by
 * `maxStaleness` batches: groups for the next steps are sampled from the weights of the moment while the learner
 * trains, each recording its weights version; a group more than `maxStaleness` versions older than the weights it
 * would update is dropped (`rollout/stale_dropped`) and replaced.
 *
 * With `maxStaleness: 0` a step's groups are exactly the next `questionsPerBatch` examples, sampled from the
 * current weights with the same seeds as the round-synchronous loop, so a run is reproducible given its seed (and a
 * resumed run equals an uninterrupted one). With `maxStaleness > 0` which groups land in which step depends on
 * timing.
 */
export class GroupStream implements BatchSource {
  readonly #o: GroupStreamOptions;
  readonly #stop = new AbortController();
  #sampler: SamplingClient | undefined;
  #version: number;
  #stepsDone: number;
  #launched: number;
  #staleDropped = 0;
  /** Groups added to the launch window by `refill()` (dynamic sampling). */
  #refilled = 0;
  /** Launch seqs consumed (trained on or dropped as stale) beyond the contiguous prefix `#prefix`. */
  readonly #consumed = new Set<number>();
  #prefix: number;
  #inFlight = 0;
  readonly #admission: RolloutAdmission;
  #idleSince: number | undefined = performance.now();
  #idleMs = 0;
  readonly #ready: ReadyGroup[] = [];
  readonly #running = new Set<Promise<void>>();
  readonly #groupKeys = new Map<string, number>();
  #wake: (() => void) | undefined;
  /** What ends the stream: a fatal trajectory under fail-fast, or an error thrown while scoring (e.g. a reward bug). */
  #fatal: Error | undefined;
  #lastBatchIdleMs = 0;

  constructor(o: GroupStreamOptions) {
    this.#o = o;
    this.#admission = new RolloutAdmission(o.rollout, o.groupSize);
    this.#version = o.weightsVersion;
    this.#launched = this.#prefix = o.startAt;
    this.#stepsDone = Math.floor(o.startAt / o.questionsPerBatch);
    allowManyAbortListeners(this.#stop.signal);
    const onAbort = () => this.#stop.abort(o.signal.reason);
    if (o.signal.aborted) this.#stop.abort(o.signal.reason);
    else o.signal.addEventListener('abort', onAbort, { once: true });
    this.#stop.signal.addEventListener('abort', () => this.#wake?.(), { once: true });
  }

  async nextBatch(): Promise<StepBatch | undefined> {
    const t0 = performance.now();
    this.#sampler ??= await this.#o.newSampler();
    this.#pump();
    const taken: ReadyGroup[] = [];
    let staleDropped = 0;
    for (;;) {
      if (this.#fatal) {
        await this.#settled();
        throw this.#fatal;
      }
      if (this.#o.signal.aborted) {
        this.#ready.push(...taken);
        this.#reportAborted();
        return undefined;
      }
      for (let i = 0; i < this.#ready.length && taken.length < this.#o.questionsPerBatch; ) {
        const g = this.#ready[i]!;
        this.#ready.splice(i, 1);
        this.#consume(g.seq);
        if (this.#version - g.weightsVersion > this.#o.maxStaleness) {
          staleDropped++;
          this.#staleDropped++;
        } else taken.push(g);
      }
      if (taken.length >= this.#o.questionsPerBatch) break;
      this.#pump();
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    taken.sort((a, b) => a.seq - b.seq);
    const idleMs = this.#idleMsNow();
    const metrics = {
      'rollout/staleness_mean': taken.reduce((s, g) => s + (this.#version - g.weightsVersion), 0) / taken.length,
      'rollout/stale_dropped': staleDropped,
      'time/learner_idle_s': (performance.now() - t0) / 1000,
      'time/sampler_idle_s': (idleMs - this.#lastBatchIdleMs) / 1000,
    };
    this.#lastBatchIdleMs = idleMs;
    return { groups: taken, metrics };
  }

  refill(): void {
    this.#refilled += this.#o.questionsPerBatch;
    this.#pump();
  }

  async weightsUpdated(step: number): Promise<void> {
    this.#sampler = await this.#o.newSampler();
    this.#version = step;
    this.#stepsDone = step;
    this.#pump();
  }

  examplesConsumed(): number {
    return this.#prefix;
  }

  async close(): Promise<void> {
    if (!this.#stop.signal.aborted) this.#stop.abort(new StreamClosed());
    await this.#settled();
    this.#reportAborted();
    this.#wake?.();
  }

  /** After `abort()`: hands the groups ready but never trained on to `onAborted`, each under the step it was rolled out for. */
  #reportAborted(): void {
    if (!this.#o.signal.aborted) return;
    for (const g of this.#ready.splice(0)) reportAborted(this.#o, this.#stepOf(g.seq), [g]);
  }

  /** The step a launch seq was rolled out for (1-based). */
  #stepOf(seq: number): number {
    return Math.floor(seq / this.#o.questionsPerBatch) + 1;
  }

  /** Starts groups while the staleness budget and the trajectory slots allow. */
  #pump(): void {
    const o = this.#o;
    while (
      !this.#stop.signal.aborted &&
      this.#sampler !== undefined &&
      this.#launched - this.#staleDropped - this.#refilled < Math.min(this.#stepsDone + 1 + o.maxStaleness, o.maxSteps ?? Infinity) * o.questionsPerBatch
    ) {
      const admitted = this.#admission.tryStart();
      if (!admitted) break;
      const run = this.#runGroup(this.#launched++, this.#sampler, this.#version, admitted).finally(() => this.#running.delete(run));
      this.#running.add(run);
    }
  }

  /** Rolls out and scores one group; its trajectories are scored as each ends. */
  async #runGroup(seq: number, sampler: SamplingClient, version: number, admitted: AdmittedGroup): Promise<void> {
    const o = this.#o;
    const example = o.examples.next().value as Example;
    const batchIndex = Math.floor(seq / o.questionsPerBatch);
    const key = this.#groupKey(batchIndex, example.id);
    const scoring = new Map<Trajectory, Promise<RewardResult>>();
    const scoreOpts = { timeoutMs: o.rewardTimeoutMs, signal: this.#stop.signal };
    let slots = o.groupSize;
    this.#busy(slots);
    const release = (n: number) => {
      slots -= n;
      this.#busy(-n);
      admitted.releaseTrajectories(n);
      this.#pump();
    };
    try {
      const ts = await runGroup(
        {
          ...o.rollout,
          sampler,
          sampling: { ...o.sampling, seed: batchSeed(o.seed, batchIndex) },
          signal: this.#stop.signal,
          ...(o.onTurn ? { onTurn: (e) => o.onTurn!({ ...e, step: batchIndex + 1 }) } : {}),
          onTrajectoryEnd: (t) => {
            scoring.set(t, scoreTrajectory(o.reward, t, scoreOpts));
            release(1);
          },
        },
        {
          example,
          groupSize: o.groupSize,
          groupSeedIndex: seq % o.questionsPerBatch,
          groupKey: key,
        },
      );
      release(slots);
      admitted.end();
      this.#pump();
      const bad = ts.find((t) => failsTheCall(o.rollout, t));
      if (bad && !this.#fatal) {
        this.#fatal = rolloutFailedError(bad);
        this.#stop.abort(this.#fatal);
      }
      const rewards_G = await scoreFinishedGroup(
        { reward: o.reward, ...(o.groupReward ? { groupReward: o.groupReward } : {}), ...scoreOpts },
        example,
        ts,
        scoring,
      );
      if (this.#stop.signal.aborted) {
        if (o.signal.aborted) reportAborted(o, batchIndex + 1, [{ trajectories_G: ts, rewards_G }]);
        return;
      }
      this.#ready.push({ seq, example, trajectories_G: ts.map((t) => ({ ...t, weightsVersion: version })), rewards_G, weightsVersion: version });
    } catch (e) {
      // Not a trajectory's failure (those end as values): surface it from nextBatch() after the rest has ended.
      if (!this.#fatal) {
        this.#fatal = e instanceof Error ? e : new Error(String(e));
        this.#stop.abort(this.#fatal);
      }
    } finally {
      if (slots > 0) release(slots);
      admitted.end();
      this.#pump();
      this.#wake?.();
    }
  }

  /** Unique trajectory-id prefix within a batch: the example id, then `${id}@${k}` for its k-th repeat. */
  #groupKey(batchIndex: number, id: string): string {
    const k = `${batchIndex}\u0000${id}`;
    const n = this.#groupKeys.get(k) ?? 0;
    this.#groupKeys.set(k, n + 1);
    if (this.#groupKeys.size > 4096) this.#groupKeys.delete(this.#groupKeys.keys().next().value!);
    return n === 0 ? id : `${id}@${n}`;
  }

  #consume(seq: number): void {
    this.#consumed.add(seq);
    while (this.#consumed.delete(this.#prefix)) this.#prefix++;
  }

  /** Tracks trajectories in flight and the time with none (the sampler idle). */
  #busy(delta: number): void {
    const before = this.#inFlight;
    this.#inFlight += delta;
    if (before === 0 && this.#inFlight > 0 && this.#idleSince !== undefined) {
      this.#idleMs += performance.now() - this.#idleSince;
      this.#idleSince = undefined;
    } else if (before > 0 && this.#inFlight === 0) this.#idleSince = performance.now();
  }

  #idleMsNow(): number {
    return this.#idleMs + (this.#idleSince !== undefined ? performance.now() - this.#idleSince : 0);
  }

  /** Waits until no group is running. */
  async #settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
