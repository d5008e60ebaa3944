import { describe, expect, it } from 'vitest';
import { runGroup, DEFAULT_BUDGETS, type DrivenEnvironment, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';
import { failsTheCall, isRetried, minSurvivorsOf, minSurvivorsProblem, retriesOf, settleBranch } from '../../src/rollout/failure-strategy.js';

const example: Example = { id: 'q', question: 'question q', answer: '1' };
const traj = (stopReason: Trajectory['stopReason'], code?: string): Trajectory => ({
  id: 'q/0',
  example,
  groupIndex: 0,
  messages: [],
  turns: [],
  stopReason,
  toolCalls: 0,
  finalText: '',
  ...(stopReason === 'error' ? { error: { stage: 'env_step' as const, message: 'boom', ...(code ? { code } : {}) } } : {}),
});

describe('the failure strategy has one reader', () => {
  it('retries: maxRetries under retry, none otherwise', () => {
    expect(retriesOf({ kind: 'retry', maxRetries: 3 })).toBe(3);
    expect(retriesOf({ kind: 'drop' })).toBe(0);
    expect(retriesOf({ kind: 'fail_fast' })).toBe(0);
    expect(retriesOf(undefined)).toBe(0);
  });

  it('fails the call: any failure under fail_fast, a prefix mismatch under onPrefixMismatch fail, never a success', () => {
    expect(failsTheCall({ failure: { kind: 'fail_fast' } }, traj('error'))).toBe(true);
    expect(failsTheCall({ failure: { kind: 'fail_fast' } }, traj('answer'))).toBe(false);
    expect(failsTheCall({ failure: { kind: 'drop' } }, traj('error'))).toBe(false);
    expect(failsTheCall({ onPrefixMismatch: 'fail' }, traj('error', 'PROMPT_PREFIX_MISMATCH'))).toBe(true);
    expect(failsTheCall({ onPrefixMismatch: 'fail' }, traj('error', 'OTHER'))).toBe(false);
    // A failure that fails the call is never retried.
    expect(isRetried({ failure: { kind: 'retry', maxRetries: 2 }, onPrefixMismatch: 'fail' }, traj('error', 'PROMPT_PREFIX_MISMATCH'), 0)).toBe(false);
    expect(isRetried({ failure: { kind: 'retry', maxRetries: 2 } }, traj('error'), 1)).toBe(true);
    expect(isRetried({ failure: { kind: 'retry', maxRetries: 2 } }, traj('error'), 2)).toBe(false);
  });

  it('minimum survivors: the strategy’s, else 1; one above the group size is refused', () => {
    expect(minSurvivorsOf({ kind: 'drop', minSurvivors: 3 })).toBe(3);
    expect(minSurvivorsOf({ kind: 'retry', maxRetries: 1 })).toBe(1);
    expect(minSurvivorsOf({ kind: 'fail_fast' })).toBe(1);
    expect(minSurvivorsProblem({ kind: 'drop', minSurvivors: 5 }, 4)).toBe('5 exceeds groupSize 4: every group would be dropped');
    expect(minSurvivorsProblem({ kind: 'drop', minSurvivors: 4 }, 4)).toBeUndefined();
    expect(minSurvivorsProblem({ kind: 'fail_fast' }, 0)).toBeUndefined();
  });

  it('settleBranch retries a failed branch up to maxRetries and reports only its final trajectory', async () => {
    const reported: Trajectory[] = [];
    const attempts: number[] = [];
    const t = await settleBranch(
      { failure: { kind: 'retry', maxRetries: 2 }, onTrajectoryEnd: (x) => reported.push(x) },
      Promise.resolve(traj('error')),
      async (a) => {
        attempts.push(a);
        return traj('error');
      },
    );
    expect(attempts).toEqual([1, 2]);
    expect(t.stopReason).toBe('error');
    expect(reported).toEqual([t]);
  });

  it('settleBranch: an abort cuts the retries short, and the failed trajectory is returned unreported', async () => {
    // Hazard: a trajectory that would have been retried is scored as final after the call was aborted.
    const ac = new AbortController();
    ac.abort();
    const reported: Trajectory[] = [];
    let reruns = 0;
    const t = await settleBranch(
      { failure: { kind: 'retry', maxRetries: 2 }, signal: ac.signal, onTrajectoryEnd: (x) => reported.push(x) },
      Promise.resolve(traj('error')),
      async () => {
        reruns++;
        return traj('answer');
      },
    );
    expect(t.stopReason).toBe('error');
    expect(reruns).toBe(0);
    expect(reported).toEqual([]);
  });

  it('a driven environment’s failed branch runs again under retry, with the same reporting as the engine’s', async () => {
    const renderer = await localRenderer();
    const calls = new Map<number, number>();
    const env: DrivenEnvironment = {
      name: 'flaky-driven',
      tools: [],
      initialMessages: () => [],
      step: async () => ({ done: true }),
      async runTrajectory(ctx) {
        const n = (calls.get(ctx.groupIndex) ?? 0) + 1;
        calls.set(ctx.groupIndex, n);
        if (ctx.groupIndex === 1 && n === 1) throw new Error('agent crashed');
        return { messages: [], turns: [], stopReason: 'answer', toolCalls: 0, finalText: '1' };
      },
    };
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    const reported: Trajectory[] = [];
    const dropped = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS, onTrajectoryEnd: (t) => reported.push(t) }, { example, groupSize: 2 });
    expect(dropped.map((t) => t.stopReason)).toEqual(['answer', 'error']);
    expect(reported.map((t) => t.stopReason).sort()).toEqual(['answer', 'error']);
    calls.clear();
    reported.length = 0;
    const retried = await runGroup(
      { sampler, renderer, env, budgets: DEFAULT_BUDGETS, failure: { kind: 'retry', maxRetries: 1 }, onTrajectoryEnd: (t) => reported.push(t) },
      { example, groupSize: 2 },
    );
    expect(retried.map((t) => t.stopReason)).toEqual(['answer', 'answer']);
    expect(retried.map((t) => t.id)).toEqual(['q/0', 'q/1']);
    expect(calls.get(1)).toBe(2);
    expect(reported.filter((t) => t.stopReason === 'error')).toEqual([]);
  });
});
