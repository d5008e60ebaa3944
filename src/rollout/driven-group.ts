import type { Environment } from '../env/types.js';
import type { Example } from '../types/example.js';
import type { Trajectory } from '../types/trajectory.js';
import { childSignal, trajectoryError, userAborted } from './abortable.js';
import { untilAborted } from '../util/until-aborted.js';
import { deriveSeed } from './seed.js';
import { settleBranch } from './failure-strategy.js';
import type { DrivenEnvironment, RolloutContext, RunGroupOptions } from './types.js';

/** True when `env` drives its own trajectories ({@link DrivenEnvironment}). */
export function isDrivenEnvironment(env: Environment): env is DrivenEnvironment {
  return typeof (env as Partial<DrivenEnvironment>).runTrajectory === 'function';
}

/** Runs one branch of a driven group under its own signal (rollout abort + `trajectoryTimeoutMs`); never rejects. */
async function runDrivenBranch(
  ctx: RolloutContext,
  env: DrivenEnvironment,
  example: Example,
  g: number,
  id: string,
  seed: number | undefined,
): Promise<Trajectory> {
  const child = childSignal(ctx.signal, ctx.trajectoryTimeoutMs);
  const base = { id, example, groupIndex: g };
  try {
    const t = await untilAborted(
      env.runTrajectory({
        trajectoryId: id,
        groupIndex: g,
        example,
        sampler: ctx.sampler,
        renderer: ctx.renderer,
        budgets: ctx.budgets,
        ...(ctx.sampling ? { sampling: ctx.sampling } : {}),
        seedFor: (call) => (seed === undefined ? undefined : deriveSeed(seed, g, call)),
        ...(ctx.templateKwargs ? { templateKwargs: ctx.templateKwargs } : {}),
        signal: child.signal,
        ...(ctx.onTurn ? { onTurn: ctx.onTurn } : {}),
      }),
      child.signal,
    );
    return { ...t, ...base };
  } catch (e) {
    const stop = ctx.signal && userAborted(ctx.signal) ? 'aborted' : 'error';
    const error =
      stop === 'error'
        ? { ...trajectoryError(child.signal.aborted ? 'timeout' : 'agent', child.signal.aborted ? child.signal.reason : e), env: env.name }
        : undefined;
    return { ...base, messages: [], turns: [], stopReason: stop, toolCalls: 0, finalText: '', ...(error ? { error } : {}) };
  } finally {
    child.dispose();
  }
}

/**
 * `runGroup` for a {@link DrivenEnvironment}: `groupSize` trajectories of one example, each run by the environment
 * itself, concurrently (no shared first-turn fork: each branch's first call samples on its own). Under
 * `failure.kind: 'retry'` a failed branch runs again, up to `maxRetries` times ({@link settleBranch}). Never rejects.
 */
export async function runDrivenGroup(ctx: RolloutContext, env: DrivenEnvironment, group: Required<RunGroupOptions>): Promise<Trajectory[]> {
  const { example, groupSize, groupSeedIndex, groupKey } = group;
  const seed = deriveSeed(ctx.sampling?.seed, groupSeedIndex);
  const run = (g: number, attempt: number) => runDrivenBranch(ctx, env, example, g, `${groupKey}/${g}`, attempt === 0 ? seed : deriveSeed(seed, attempt, g));
  return Promise.all(Array.from({ length: groupSize }, (_, g) => settleBranch(ctx, run(g, 0), (attempt) => run(g, attempt))));
}
