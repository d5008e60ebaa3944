import type { TrajectoryError, TrajectoryErrorStage } from '../types/trajectory.js';

/** Abort reason of a trajectory that ran past `trajectoryTimeoutMs` (distinguishes a timeout from a user abort). */
export class TrajectoryTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`trajectory ran past its ${timeoutMs} ms timeout`);
    this.name = 'TrajectoryTimeout';
  }
}

/**
 * Resolves like `p`, or rejects with `signal.reason` as soon as `signal` aborts, whichever comes first, so a
 * caller never waits on work that ignores the signal. A rejection of `p` after the race is lost is swallowed.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
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

/** The {@link TrajectoryError} of a throw at `stage`; a timeout abort is reported as stage `timeout`. */
export function trajectoryError(stage: TrajectoryErrorStage, e: unknown): TrajectoryError {
  if (e instanceof TrajectoryTimeout) return { stage: 'timeout', message: e.message, code: 'TIMEOUT', cause: e };
  const err = e instanceof Error ? e : undefined;
  const rawCode = (err as { code?: unknown } | undefined)?.code;
  const code = typeof rawCode === 'string' ? rawCode : err?.name;
  return { stage, message: err ? err.message : String(e), ...(code ? { code } : {}), cause: e };
}

/** True when `signal` was aborted by the user (not by a trajectory timeout). */
export function userAborted(signal: AbortSignal): boolean {
  return signal.aborted && !(signal.reason instanceof TrajectoryTimeout);
}
