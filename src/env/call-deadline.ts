import { ToolTimeoutError } from '../errors/env-errors.js';
import type { Example } from '../types/example.js';
import type { ToolContext } from './types.js';

/**
 * Runs one tool call under a deadline: `run` gets a context whose `signal` also aborts (with a
 * {@link ToolTimeoutError}) after `timeoutMs`, and the returned promise rejects with that error then, whether or not
 * the call honours its signal — a stuck `execute` is left behind, never waited on. Rejects with the trajectory's
 * abort reason when `ctx.signal` aborts first. `Infinity` sets no timer.
 */
export async function callWithDeadline<T, E extends Example>(
  tool: string,
  timeoutMs: number,
  ctx: ToolContext<E>,
  run: (callCtx: ToolContext<E>) => T | Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  // The call's context: everything of the trajectory's (state, counters, countTokens), with the call's own signal.
  const callCtx = Object.create(ctx, { signal: { value: controller.signal, enumerable: true } }) as ToolContext<E>;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      if (controller.signal.aborted) return reject(controller.signal.reason);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      if (Number.isFinite(timeoutMs)) timer = setTimeout(() => controller.abort(new ToolTimeoutError(tool, timeoutMs)), timeoutMs);
      Promise.resolve()
        .then(() => run(callCtx))
        .then(resolve, reject);
    });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
