import { allowManyAbortListeners } from '../platform/host.js';
import type { Example } from '../types/example.js';
import type { Message } from '../types/message.js';
import type { Trajectory, TrajectoryError } from '../types/trajectory.js';
import { type RolloutFailedError, rolloutFailedError } from '../errors/rollout-errors.js';
import { ConfigError } from '../errors/config-error.js';
import { describeValue } from '../errors/config-issues.js';
import type { RolloutContext, RunGroupOptions } from './types.js';
import { runBranch } from './branch.js';
import { deriveSeed } from './seed.js';
import { turnSamplingParams, turnTokenLimit } from '../types/turn-sampling.js';
import { childSignal, trajectoryError, userAborted } from './abortable.js';
import { untilAborted } from '../util/until-aborted.js';
import { checkSampledSequence } from './check-sample.js';
import { isDrivenEnvironment, runDrivenGroup } from './driven-group.js';
import { failsTheCall, settleBranch } from './failure-strategy.js';
import { RolloutAdmission } from './admission.js';
import { checkOptions, checkArgumentCount, optionKeys, objectValue, positiveInt } from '../util/check-options.js';
import { SamplerResponseError } from '../errors/sampler-errors.js';

/** The keys of {@link RolloutContext}; the four it cannot do without are checked for presence. */
const ROLLOUT_CONTEXT = optionKeys<RolloutContext>({
  sampling: true,
  failure: true,
  onPrefixMismatch: true,
  trajectoryTimeoutMs: true,
  stepTimeoutMs: true,
  maxConcurrentGroups: true,
  maxConcurrentTrajectories: true,
  templateKwargs: true,
  signal: true,
  onTurn: true,
  onTrajectoryEnd: true,
  sampler: objectValue,
  renderer: objectValue,
  env: objectValue,
  budgets: objectValue,
});
const RUN_GROUP_OPTIONS = optionKeys<RunGroupOptions>({ groupSeedIndex: true, groupKey: true, example: objectValue, groupSize: positiveInt });

/** Refuses a rollout context with an unknown key (`prefixMismatch` for `onPrefixMismatch`) or without its sampler, renderer, env or budgets. */
function checkRolloutContext(fn: string, ctx: unknown): void {
  checkOptions(`${fn} context`, ROLLOUT_CONTEXT, ctx, { signature: `${fn}({ sampler, renderer, env, budgets, … }, …)` });
}

/** A trajectory that ended before its first turn (error, abort or no room for a completion); it owns a copy of `messages`. */
function emptyTrajectory(
  id: string,
  example: Example,
  g: number,
  messages: readonly Message[],
  stop: Trajectory['stopReason'],
  error?: TrajectoryError,
): Trajectory {
  return {
    id,
    example,
    groupIndex: g,
    messages: structuredClone(messages) as Message[],
    turns: [],
    stopReason: stop,
    toolCalls: 0,
    finalText: '',
    ...(error ? { error } : {}),
  };
}

/** Ends every branch of a group the same way (the failure happened before the fork). */
function wholeGroup(
  key: string,
  example: Example,
  groupSize: number,
  messages: readonly Message[],
  stop: Trajectory['stopReason'],
  error?: TrajectoryError,
): Trajectory[] {
  return Array.from({ length: groupSize }, (_, g) => emptyTrajectory(`${key}/${g}`, example, g, messages, stop, error));
}

/**
 * Rolls out one group: `groupSize` trajectories for one example. The first turn forks all
 * branches with ONE `sample` call (`numSamples = groupSize`) from the shared prompt; after that each
 * branch advances on its own (sample → parse → execute → observation → sample) without waiting for
 * the others, and tool calls of different branches run concurrently through the sandbox.
 * Each branch starts from its own copy of the prompt state: every trajectory owns its `messages` from the moment it is
 * created (the environment's array is copied before the first await, then once per trajectory), so an environment
 * that reuses or mutates its arrays, or a caller that edits one trajectory's messages, never changes another's.
 *
 * Never rejects: `initialMessages` or the prompt render throwing ends the whole group as `error` trajectories;
 * a branch that throws ends as `error` (see {@link runBranch}). Under `failure.kind: 'retry'` a failed branch is
 * rolled out again from the group's prompt with a fresh one-sample fork as soon as it failed ({@link settleBranch}). Each branch has its own signal, a child
 * of `ctx.signal` that also fires after `ctx.trajectoryTimeoutMs`. An environment that drives its own trajectories
 * (`DrivenEnvironment`, e.g. `agentEnvironment`) runs each branch itself instead (no shared fork).
 * @param group - the example, the group size G, the group's seed index and its id prefix ({@link RunGroupOptions}).
 * @returns trajectories in branch order (`groupIndex` 0..G−1).
 * @see KMnO4-zx/agentic-rl-lab `05-retool/rollout.py` `advance_round` (first-turn fork, per-branch continuation).
 */
export async function runGroup(ctx: RolloutContext, group: RunGroupOptions): Promise<Trajectory[]> {
  checkArgumentCount('runGroup', arguments.length, 2, 'runGroup(ctx, { example, groupSize, groupSeedIndex?, groupKey? })');
  checkRolloutContext('runGroup', ctx);
  checkOptions('runGroup options', RUN_GROUP_OPTIONS, group, { signature: 'runGroup(ctx, { example, groupSize, groupSeedIndex?, groupKey? })' });
  const { example, groupSize, groupSeedIndex = 0, groupKey = example.id } = group;
  const routed = ctx.env.envFor?.(example);
  if (routed && routed !== ctx.env) return runGroup({ ...ctx, env: routed }, group);
  if (isDrivenEnvironment(ctx.env)) return runDrivenGroup(ctx, ctx.env, { example, groupSize, groupSeedIndex, groupKey });
  let messages: Message[] = [];
  let promptTokens: number[];
  try {
    // Copied at once: the environment may reuse or change its array (for the next group) while this one samples.
    messages = structuredClone(ctx.env.initialMessages(example));
  } catch (e) {
    return wholeGroup(groupKey, example, groupSize, messages, 'error', { ...trajectoryError('initial_messages', e), env: ctx.env.name });
  }
  try {
    promptTokens = ctx.renderer.renderPrompt(messages, {
      tools: ctx.env.tools,
      addGenerationPrompt: true,
      ...(ctx.templateKwargs ? { templateKwargs: ctx.templateKwargs } : {}),
    });
  } catch (e) {
    return wholeGroup(groupKey, example, groupSize, messages, 'error', trajectoryError('render', e));
  }
  const { room, maxTokens } = turnTokenLimit(ctx.budgets, promptTokens.length);
  if (room < 1) return wholeGroup(groupKey, example, groupSize, messages, 'max_trajectory_tokens');
  const seed = deriveSeed(ctx.sampling?.seed, groupSeedIndex);

  /**
   * Samples the first turns of the branches `indices` with one call and runs one branch per sequence; returns one
   * promise per branch (never rejecting). Each branch's signal covers its part of the fork and the branch.
   */
  const fork = (indices: readonly number[], attempt: number): Promise<Trajectory>[] => {
    const children = indices.map(() => childSignal(ctx.signal, ctx.trajectoryTimeoutMs));
    // One fork for the whole group on the first attempt (its signal ends when every branch's has).
    const forkSignal = indices.length === 1 ? children[0]!.signal : (ctx.signal ?? new AbortController().signal);
    const forkSeed = attempt === 0 ? seed : deriveSeed(seed ?? ctx.sampling?.seed, attempt, indices[0]!);
    const sampled = (async () => {
      const first = await untilAborted(
        ctx.sampler.sample(
          promptTokens,
          turnSamplingParams(ctx.sampling, { numSamples: indices.length, maxTokens, stop: ctx.renderer.stopTokens, seed: forkSeed, signal: forkSignal }),
        ),
        forkSignal,
      );
      if (first.length !== indices.length)
        throw new SamplerResponseError('sequences', null, `the sampler returned ${first.length} sequences for ${indices.length}`);
      return first;
    })();
    const branches = indices.map((g, i) =>
      sampled.then(
        (first) => {
          // A sequence no model could have produced (ids outside the vocabulary, NaN or positive logprobs, too long)
          // fails its own branch at stage `sample`; the group's other branches go on.
          try {
            checkSampledSequence(first[i]!, { vocabSize: ctx.renderer.vocabSize, maxTokens });
          } catch (e) {
            return emptyTrajectory(`${groupKey}/${g}`, example, g, messages, 'error', { ...trajectoryError('sample', e), env: ctx.env.name, turn: 1 });
          }
          return runBranch(
            { ...ctx, ...(children[i] ? { signal: children[i].signal } : {}) },
            { example, groupIndex: g, messages: structuredClone(messages), promptTokens: [...promptTokens], first: first[i]!, id: `${groupKey}/${g}` },
          );
        },
        (e: unknown) => {
          const stop = ctx.signal && userAborted(ctx.signal) ? 'aborted' : 'error';
          return emptyTrajectory(
            `${groupKey}/${g}`,
            example,
            g,
            messages,
            stop,
            stop === 'error' ? trajectoryError('sample', forkSignal.aborted ? forkSignal.reason : e) : undefined,
          );
        },
      ),
    );
    void Promise.allSettled(branches).then(() => {
      for (const c of children) c.dispose();
    });
    return branches;
  };

  const firsts = fork(
    Array.from({ length: groupSize }, (_, g) => g),
    0,
  );
  // A failed branch is rolled out again (a one-sample fork of its own) as the failure strategy says.
  return Promise.all(firsts.map((first, g) => settleBranch(ctx, first, (attempt) => fork([g], attempt)[0]!)));
}

/**
 * Rolls out every example's group (`examples.length × groupSize` trajectories), at most
 * `ctx.maxConcurrentGroups` groups and `ctx.maxConcurrentTrajectories` trajectories at once (a group starts when
 * `groupSize` trajectory slots are free; each trajectory frees its slot when it ends). Trajectory ids are unique within the call even when an example
 * appears more than once (`${id}@${k}/${g}` for its k-th repeat). Never leaves work running: every group has
 * ended (or been aborted and ended) when it settles.
 * @returns one array of trajectories per example, in input order.
 * @throws RolloutFailedError under `failure: { kind: 'fail_fast' }` (or `onPrefixMismatch: 'fail'`) when a trajectory
 *   failed, after aborting and awaiting every other rollout of the call.
 */
export async function runRollouts(ctx: RolloutContext, examples: readonly Example[], groupSize: number, seedOffset = 0): Promise<Trajectory[][]> {
  checkArgumentCount('runRollouts', arguments.length, 4, 'runRollouts(ctx, examples, groupSize, seedOffset?)');
  checkRolloutContext('runRollouts', ctx);
  const sig = 'runRollouts(ctx, examples, groupSize, seedOffset?)';
  if (!Array.isArray(examples))
    throw new ConfigError('runRollouts arguments', [
      { path: 'examples', message: `expected an array of examples — call ${sig}, got ${describeValue(examples)}` },
    ]);
  if (!Number.isInteger(groupSize) || groupSize < 1)
    throw new ConfigError('runRollouts arguments', [{ path: 'groupSize', message: `expected an integer ≥ 1 — call ${sig}, got ${describeValue(groupSize)}` }]);
  const keys = groupKeys(examples);
  const stop = new AbortController();
  allowManyAbortListeners(stop.signal); // every trajectory of the call listens to it
  const parent = ctx.signal;
  const onParentAbort = () => stop.abort(parent!.reason);
  if (parent?.aborted) stop.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const inner: RolloutContext = { ...ctx, signal: stop.signal };
  const admission = new RolloutAdmission(ctx, groupSize);
  let fatal: Trajectory | undefined;
  try {
    const groups = await Promise.all(
      examples.map(async (ex, i) => {
        const slot = await admission.start();
        try {
          if (fatal) return [];
          const onTrajectoryEnd = (t: Trajectory) => {
            slot.releaseTrajectories(1);
            ctx.onTrajectoryEnd?.(t);
          };
          const ts = await runGroup({ ...inner, onTrajectoryEnd }, { example: ex, groupSize, groupSeedIndex: seedOffset + i, groupKey: keys[i]! });
          const bad = ts.find((t) => failsTheCall(ctx, t));
          if (bad && !fatal) {
            fatal = bad;
            stop.abort(rolloutFailedError(bad));
          }
          return ts;
        } finally {
          slot.end();
        }
      }),
    );
    if (fatal) throw stop.signal.reason as RolloutFailedError;
    return groups;
  } finally {
    parent?.removeEventListener('abort', onParentAbort);
  }
}

/** Group keys unique within a batch: the example id, then `${id}@${k}` for its k-th repeat. */
export function groupKeys(examples: readonly Example[]): string[] {
  const seen = new Map<string, number>();
  return examples.map((ex) => {
    const k = seen.get(ex.id) ?? 0;
    seen.set(ex.id, k + 1);
    return k === 0 ? ex.id : `${ex.id}@${k}`;
  });
}
