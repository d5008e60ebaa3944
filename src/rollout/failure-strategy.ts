import type { Trajectory } from '../types/trajectory.js';
import type { PrefixMismatchPolicy } from '../types/prefix-mismatch.js';
import type { RolloutFailureStrategy } from './types.js';

/**
 * The one reader of {@link RolloutFailureStrategy}: every question the rollout engine, the Trainer and its config
 * ask of a strategy (how many retries, whether a failure ends the call, how many survivors a group needs) is
 * answered here, and the failed-branch retry loop is {@link settleBranch}. Modelled on tinker-cookbook's
 * `rl/rollout_strategy.py` (`FailFast`, `RetryOnFailure`), where a strategy is a value with its own behaviour.
 */

/** The part of a rollout context that decides what a failure does. */
export interface FailureHandling {
  /** @default `{ kind: 'drop' }` */
  readonly failure?: RolloutFailureStrategy;
  /** Only `'fail'` matters here: a prefix mismatch then fails the call like `fail_fast`. */
  readonly onPrefixMismatch?: PrefixMismatchPolicy;
}

/** Times a failed trajectory is rolled out again: `maxRetries` under `retry`, else 0. */
export function retriesOf(strategy: RolloutFailureStrategy | undefined): number {
  return strategy?.kind === 'retry' ? strategy.maxRetries : 0;
}

/**
 * True when `t` must fail the whole call (`RolloutFailedError`): any failure under `fail_fast`, a prefix mismatch
 * (`PROMPT_PREFIX_MISMATCH`) under `onPrefixMismatch: 'fail'`. Never for a trajectory that did not fail.
 */
export function failsTheCall(h: FailureHandling, t: Trajectory): boolean {
  if (t.stopReason !== 'error') return false;
  if (h.failure?.kind === 'fail_fast') return true;
  return h.onPrefixMismatch === 'fail' && t.error?.code === 'PROMPT_PREFIX_MISMATCH';
}

/**
 * True when `t`, the branch's attempt number `attempt` (0 for the first roll-out), is rolled out again: it failed,
 * does not fail the call, and the strategy has a retry left.
 */
export function isRetried(h: FailureHandling, t: Trajectory, attempt: number): boolean {
  return t.stopReason === 'error' && attempt < retriesOf(h.failure) && !failsTheCall(h, t);
}

/**
 * The fewest surviving trajectories (not failed, not dropped by the reward) a group needs to be trained on; a group
 * with fewer is dropped whole (`groupOutcome`'s `droppedGroup`, the `dropped_groups` warning). The strategy's
 * `minSurvivors`, else 1 (`fail_fast` has none: a failure ends the call before a group could be short).
 */
export function minSurvivorsOf(strategy: RolloutFailureStrategy): number {
  return strategy.kind === 'fail_fast' ? 1 : (strategy.minSurvivors ?? 1);
}

/**
 * Why `strategy` cannot work with groups of `groupSize` trajectories, or `undefined` when it can: a `minSurvivors`
 * above the group size would drop every group.
 */
export function minSurvivorsProblem(strategy: RolloutFailureStrategy, groupSize: number): string | undefined {
  const minSurvivors = strategy.kind === 'fail_fast' ? undefined : strategy.minSurvivors;
  return minSurvivors !== undefined && minSurvivors > groupSize ? `${minSurvivors} exceeds groupSize ${groupSize}: every group would be dropped` : undefined;
}

/**
 * Settles one branch of a group under the failure strategy: waits for its first roll-out (`first`), then, while
 * {@link isRetried}, rolls it out again with `rerun(attempt)` (attempt 1, 2, …), each as soon as the previous one
 * failed. The final trajectory goes to `onTrajectoryEnd` before it is returned; a failed one whose retries an abort
 * of `signal` cut short is returned without being reported. Never rejects unless `first` or `rerun` does.
 * @returns the branch's last trajectory.
 */
export async function settleBranch(
  h: FailureHandling & { readonly signal?: AbortSignal; readonly onTrajectoryEnd?: (t: Trajectory) => void },
  first: Promise<Trajectory>,
  rerun: (attempt: number) => Promise<Trajectory>,
): Promise<Trajectory> {
  let t = await first;
  for (let attempt = 0; isRetried(h, t, attempt); ) {
    if (h.signal?.aborted) return t;
    t = await rerun(++attempt);
  }
  h.onTrajectoryEnd?.(t);
  return t;
}
