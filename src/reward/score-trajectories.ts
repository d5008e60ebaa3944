import { allowManyAbortListeners } from '../platform/host.js';
import type { Reward } from '../types/reward.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import { untilAborted } from '../util/until-aborted.js';
import { RewardShapeError } from '../errors/reward-shape-error.js';

/** A dropped, unscored sample with its reason. */
function dropped(failure: NonNullable<RewardResult['failure']>, cause: string): RewardResult {
  return { reward: 0, correct: false, validFormat: false, failure, drop: true, cause };
}

/**
 * Checks what a reward returned. A value with no usable `reward` (not an object, `reward` missing or not a finite
 * number) is a bug in the reward, not a property of one sample: it throws {@link RewardShapeError}. Missing or
 * non-boolean `correct` / `validFormat` are filled in (`correct: reward > 0`, `validFormat: false`) and reported
 * in `shapeWarning` so the caller can warn once.
 */
export function checkRewardResult(trajectoryId: string, v: unknown): RewardResult & { shapeWarning?: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new RewardShapeError(trajectoryId, v, `expected an object, got ${Array.isArray(v) ? 'an array' : typeof v}`);
  const o = v as Record<string, unknown>;
  if (!('reward' in o)) {
    const keys = Object.keys(o);
    throw new RewardShapeError(trajectoryId, v, `no 'reward' field${keys.length ? ` (it has ${keys.map((k) => `'${k}'`).join(', ')})` : ''}`);
  }
  if (typeof o.reward !== 'number') throw new RewardShapeError(trajectoryId, v, `'reward' is a ${typeof o.reward}, expected a number`);
  if (!Number.isFinite(o.reward)) throw new RewardShapeError(trajectoryId, v, `'reward' is ${o.reward}, expected a finite number`);
  const missing = (['correct', 'validFormat'] as const).filter((k) => typeof o[k] !== 'boolean');
  if (missing.length === 0) return v as RewardResult;
  return {
    ...(v as RewardResult),
    correct: typeof o.correct === 'boolean' ? o.correct : o.reward > 0,
    validFormat: typeof o.validFormat === 'boolean' ? o.validFormat : false,
    shapeWarning: `${missing.map((k) => `'${k}'`).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not a boolean (got ${missing.map((k) => JSON.stringify(o[k]) ?? 'undefined').join(', ')}); used correct = reward > 0, validFormat = false`,
  };
}

/** Thrown into the race when a reward ran past its deadline. */
class RewardTimeout extends Error {}

/**
 * Scores one trajectory with a deadline. Never rejects: a failed trajectory is not scored
 * (`rollout_error`), a throwing reward gives `reward_error`, one past `timeoutMs` gives `reward_timeout`, an abort
 * of `signal` gives `aborted` — all with `drop: true` and the cause in words. The reward's own promise is not
 * awaited past the deadline (a reward that never resolves cannot hang the caller).
 * @throws RewardShapeError when the reward returns something that is not a `RewardResult` (see {@link checkRewardResult}).
 */
export async function scoreTrajectory(reward: Reward, t: Trajectory, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<RewardResult> {
  if (t.stopReason === 'error') return dropped('rollout_error', `${t.error?.stage ?? 'rollout'}: ${t.error?.message ?? 'failed'}`);
  if (opts.signal?.aborted) return dropped('aborted', 'aborted before scoring');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new RewardTimeout(`reward did not resolve within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  const onAbort = () => deadline.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let result: unknown;
  try {
    const call = Promise.resolve().then(() => reward(t, t.example));
    result = await untilAborted(call, deadline.signal);
  } catch (e) {
    if (e instanceof RewardTimeout) return dropped('reward_timeout', e.message);
    if (opts.signal?.aborted) return dropped('aborted', 'aborted while scoring');
    return dropped('reward_error', e instanceof Error ? e.message : String(e));
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
  return checkRewardResult(t.id, result);
}

/** Scores every trajectory of every group concurrently (see {@link scoreTrajectory}); same shape as the input. */
export async function scoreGroups(
  reward: Reward,
  groups: readonly (readonly Trajectory[])[],
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<RewardResult[][]> {
  // One child signal that every scoring call listens to (the caller's signal gets a single listener).
  const all = new AbortController();
  allowManyAbortListeners(all.signal);
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
