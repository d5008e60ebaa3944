import type { Example } from '../types/example.js';
import { runRollouts } from '../rollout/index.js';
import { batchSeed, reportAborted, type BatchSource, type BatchSourceOptions, type ReadyGroup, type StepBatch } from './batch-source.js';
import { scoreFinishedGroup } from './score-group.js';

/**
 * Round-synchronous batches (`rollout.streaming: false`): per step, a sampler from the current weights rolls out
 * the next `questionsPerBatch` groups, every trajectory is scored after all rollouts ended, and the learner waits
 * for the slowest one (the sampler waits during the update). On-policy: staleness is always 0.
 */
export function syncBatchSource(o: BatchSourceOptions): BatchSource {
  let consumed = o.startAt;
  let version = o.weightsVersion;
  let lastBatchEnd: number | undefined;
  return {
    async nextBatch(step: number): Promise<StepBatch | undefined> {
      const t0 = performance.now();
      const examples: Example[] = [];
      for (let i = 0; i < o.questionsPerBatch; i++) examples.push(o.examples.next().value as Example);
      const batchIndex = Math.floor(consumed / o.questionsPerBatch);
      const sampler = await o.newSampler();
      const samplerIdleS = lastBatchEnd === undefined ? 0 : (performance.now() - lastBatchEnd) / 1000;
      const groups_P = await runRollouts(
        {
          ...o.rollout,
          sampler,
          sampling: { ...o.sampling, seed: batchSeed(o.seed, batchIndex) },
          signal: o.signal,
          ...(o.onTurn ? { onTurn: (e) => o.onTurn!({ ...e, step }) } : {}),
        },
        examples,
        o.groupSize,
      );
      if (o.signal.aborted) {
        reportAborted(
          o,
          step,
          groups_P.map((trajectories_G) => ({ trajectories_G })),
        );
        return undefined;
      }
      const rewards_P = await Promise.all(
        examples.map((ex, p) =>
          scoreFinishedGroup(
            { reward: o.reward, ...(o.groupReward ? { groupReward: o.groupReward } : {}), timeoutMs: o.rewardTimeoutMs, signal: o.signal },
            ex,
            groups_P[p]!,
          ),
        ),
      );
      if (o.signal.aborted) {
        reportAborted(
          o,
          step,
          groups_P.map((trajectories_G, p) => ({ trajectories_G, rewards_G: rewards_P[p]! })),
        );
        return undefined;
      }
      const groups: ReadyGroup[] = examples.map((example, p) => ({
        seq: consumed + p,
        example,
        trajectories_G: groups_P[p]!.map((t) => ({ ...t, weightsVersion: version })),
        rewards_G: rewards_P[p]!,
        weightsVersion: version,
      }));
      consumed += examples.length;
      lastBatchEnd = performance.now();
      const metrics = {
        'rollout/staleness_mean': 0,
        'rollout/stale_dropped': 0,
        'time/learner_idle_s': (lastBatchEnd - t0) / 1000,
        'time/sampler_idle_s': samplerIdleS,
      };
      return { groups, metrics };
    },
    async weightsUpdated(step: number): Promise<void> {
      version = step;
    },
    examplesConsumed: () => consumed,
    async close(): Promise<void> {},
  };
}
