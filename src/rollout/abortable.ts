import { ToolTimeoutError } from '../errors/env-errors.js';
import { untilAborted } from '../util/until-aborted.js';
import type { TrajectoryError, TrajectoryErrorStage } from '../types/trajectory.js';

/** Abort reason of a trajectory that ran past `trajectoryTimeoutMs` (distinguishes a timeout from a user abort). */
export class TrajectoryTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`trajectory ran past its ${timeoutMs} ms timeout`);
    this.name = 'TrajectoryTimeout';
  }
}

/**
 * Abort reason of an `env.step` (or `endTrajectory`) call that ran past its per-call deadline
 * (`rollout.stepTimeoutMs`, the environment's `stepTimeoutMs`, or {@link DEFAULT_STEP_TIMEOUT_MS}); the trajectory ends
 * as an `error` with stage `timeout`, like one past `trajectoryTimeoutMs`.
 */
export class StepTimeout extends TrajectoryTimeout {
  constructor(timeoutMs: number) {
    super(timeoutMs);
    this.message = `env.step did not resolve within ${timeoutMs} ms (rollout.stepTimeoutMs); the environment ignored its abort signal or is stuck`;
    this.name = 'StepTimeout';
  }
}

/**
 * Default per-call deadline of `env.step` when neither `rollout.stepTimeoutMs` nor the environment's own
 * `stepTimeoutMs` is set: 60 000 ms. A step still pending then ends its trajectory (stage `timeout`); the
 * environment's signal is aborted so it can stop. Environments whose steps wait for queued work declare more.
 */
export const DEFAULT_STEP_TIMEOUT_MS = 60_000;

/**
 * Deadline of an environment's `endTrajectory` cleanup, in ms (10 000, or the step deadline when shorter): a cleanup
 * still pending then is left behind and the trajectory is reported.
 */
export const END_TRAJECTORY_TIMEOUT_MS = 10_000;

/**
 * The deadline of one `env.step` in ms: the run's `stepTimeoutMs` when set, else the environment's own, else
 * {@link DEFAULT_STEP_TIMEOUT_MS}. `Infinity` means none.
 */
export function stepDeadlineMs(runStepTimeoutMs: number | undefined, env: { readonly stepTimeoutMs?: number }): number {
  return runStepTimeoutMs ?? env.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
}

/**
 * Resolves like `p`, or rejects with a {@link StepTimeout} after `timeoutMs` (aborting `controller` with it, so the
 * work can stop), or with `controller.signal.reason` when it aborts first. `Infinity` (or a non-finite value) sets no
 * timer.
 */
export async function withDeadline<T>(p: Promise<T>, timeoutMs: number, controller: AbortController): Promise<T> {
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => controller.abort(new StepTimeout(timeoutMs)), timeoutMs) : undefined;
  try {
    return await untilAborted(p, controller.signal);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * A child signal of `parent` that also aborts (with a {@link TrajectoryTimeout} reason) after `timeoutMs`.
 * Call `dispose()` when done so no timer or listener outlives the trajectory.
 */
export function childSignal(parent: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal; dispose: () => void } {
  const c = new AbortController();
  const onAbort = () => c.abort(parent!.reason);
  if (parent?.aborted) c.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  const timer = timeoutMs !== undefined && Number.isFinite(timeoutMs) ? setTimeout(() => c.abort(new TrajectoryTimeout(timeoutMs)), timeoutMs) : undefined;
  return {
    signal: c.signal,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

/** A controller that aborts (with the same reason) when `parent` does; `dispose()` detaches it. */
export function linkedController(parent: AbortSignal | undefined): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent!.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent?.removeEventListener('abort', onAbort) };
}

/** The {@link TrajectoryError} of a throw at `stage`; a timeout abort is reported as stage `timeout`. */
export function trajectoryError(stage: TrajectoryErrorStage, e: unknown): TrajectoryError {
  if (e instanceof TrajectoryTimeout) return { stage: 'timeout', message: e.message, code: 'TIMEOUT', cause: e };
  if (e instanceof ToolTimeoutError) return { stage: 'timeout', message: e.message, code: e.code, cause: e };
  const err = e instanceof Error ? e : undefined;
  const rawCode = (err as { code?: unknown } | undefined)?.code;
  const code = typeof rawCode === 'string' ? rawCode : err?.name;
  return { stage, message: err ? err.message : String(e), ...(code ? { code } : {}), cause: e };
}

/** True when `signal` was aborted by the user (not by a trajectory timeout). */
export function userAborted(signal: AbortSignal): boolean {
  return signal.aborted && !(signal.reason instanceof TrajectoryTimeout);
}
