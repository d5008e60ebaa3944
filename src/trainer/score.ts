import { setMaxListeners } from 'node:events';
import type { Reward } from '../reward/types.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { untilAborted } from '../rollout/abortable.js';

/** A dropped, unscored sample with its reason. */
function dropped(failure: NonNullable<RewardResult['failure']>, cause: string): RewardResult {
  return { reward: 0, correct: false, validFormat: false, failure, drop: true, cause };
}

/** Thrown into the race when a reward ran past its deadline. */
class RewardTimeout extends Error {}

/**
 * Scores one trajectory with a deadline. Never rejects: a failed trajectory is not scored
 * (`rollout_error`), a throwing reward gives `reward_error`, one past `timeoutMs` gives `reward_timeout`, an abort
 * of `signal` gives `aborted` — all with `drop: true` and the cause in words. The reward's own promise is not
 * awaited past the deadline (a reward that never resolves cannot hang the caller).
 */
export async function scoreTrajectory(reward: Reward, t: Trajectory, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<RewardResult> {
  if (t.stopReason === 'error') return dropped('rollout_error', `${t.error?.stage ?? 'rollout'}: ${t.error?.message ?? 'failed'}`);
  if (opts.signal?.aborted) return dropped('aborted', 'aborted before scoring');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new RewardTimeout(`reward did not resolve within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  const onAbort = () => deadline.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const call = Promise.resolve().then(() => reward(t, t.example));
    return await untilAborted(call, deadline.signal);
  } catch (e) {
    if (e instanceof RewardTimeout) return dropped('reward_timeout', e.message);
    if (opts.signal?.aborted) return dropped('aborted', 'aborted while scoring');
    return dropped('reward_error', e instanceof Error ? e.message : String(e));
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** Scores every trajectory of every group concurrently (see {@link scoreTrajectory}); same shape as the input. */
export async function scoreGroups(reward: Reward, groups: readonly (readonly Trajectory[])[], opts: { timeoutMs: number; signal?: AbortSignal }): Promise<RewardResult[][]> {
  // One child signal that every scoring call listens to (the caller's signal gets a single listener).
  const all = new AbortController();
  setMaxListeners(0, all.signal);
  const parent = opts.signal;
  const onAbort = () => all.abort(parent!.reason);
  if (parent?.aborted) all.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  try {
    const o = { timeoutMs: opts.timeoutMs, signal: all.signal };
    return await Promise.all(groups.map((ts) => Promise.all(ts.map((t) => scoreTrajectory(reward, t, o)))));
  } finally {
    parent?.removeEventListener('abort', onAbort);
  }
}
