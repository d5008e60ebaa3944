import { describe, expect, it } from 'vitest';
import {
  codeInterpreter,
  runGroup,
  runRollouts,
  DEFAULT_BUDGETS,
  RolloutFailedError,
  PromptPrefixError,
  SandboxUnavailableError,
  type Environment,
  type Example,
  type Renderer,
  type SamplingClient,
} from 'agentrl';
import { fakeSandbox, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';

const ex = (id: string): Example => ({ id, question: `question ${id}`, answer: '1' });
const budgets = { ...DEFAULT_BUDGETS, maxToolCalls: 3, maxTurns: 6 };

/** Every branch calls the tool once with `print(<sample index>)`, then answers. */
async function toolThenAnswer(): Promise<{ renderer: Renderer; sampler: SamplingClient }> {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt, call, sample }) => (call === 0 || !prompt.includes('<tool_response>') ? toolCall(`print(${sample})`) : '\\boxed{1}'),
  });
  return { renderer, sampler };
}

/** A code interpreter whose step throws for the code `print(<bad>)`. */
function throwingEnv(bad: number, error: () => unknown = () => new Error('env exploded')): Environment {
  const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
  return {
    ...inner,
    async step(action, ctx) {
      if (action.kind === 'tool' && action.call.function.arguments['code'] === `print(${bad})`) throw error();
      return inner.step(action, ctx);
    },
  };
}

describe('rollout failures end one trajectory, not the call', () => {
  it('env.step throwing ends that branch with stopReason error and its cause; the others finish', async () => {
    // Hazard: one throwing tool call rejecting the whole group (and so the Trainer's step).
    const { renderer, sampler } = await toolThenAnswer();
    const group = await runGroup({ sampler, renderer, env: throwingEnv(1), budgets }, { example: ex('q'), groupSize: 3 });
    expect(group.map((t) => t.stopReason)).toEqual(['answer', 'error', 'answer']);
    expect(group[1]!.error).toMatchObject({ stage: 'env_step', message: 'env exploded' });
    expect(group[1]!.turns).toHaveLength(0);
  });

  it('a sandbox crash thrown by a custom environment is an error with the sandbox error code', async () => {
    const { renderer, sampler } = await toolThenAnswer();
    const env = throwingEnv(0, () => new SandboxUnavailableError('worker died'));
    const group = await runGroup({ sampler, renderer, env, budgets }, { example: ex('q'), groupSize: 2 });
    expect(group.map((t) => t.stopReason)).toEqual(['error', 'answer']);
    expect(group[0]!.error?.code).toBe('SANDBOX_UNAVAILABLE');
  });

  it('a chat-template rewrite is an error at next_prompt; onPrefixMismatch fail fails the call instead', async () => {
    const { renderer, sampler } = await toolThenAnswer();
    let n = 0;
    const rewriting: Renderer = {
      ...renderer,
      nextPrompt: (args) => {
        if (n++ === 0) throw new PromptPrefixError('history rewritten');
        return renderer.nextPrompt(args);
      },
    };
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const group = await runGroup({ sampler, renderer: rewriting, env, budgets }, { example: ex('q'), groupSize: 2 });
    expect(group.map((t) => t.stopReason).sort()).toEqual(['answer', 'error']);
    const bad = group.find((t) => t.stopReason === 'error')!;
    expect(bad.error).toMatchObject({ stage: 'next_prompt', code: 'PROMPT_PREFIX_MISMATCH' });
    // The turn that was sampled is kept (it happened), but the trajectory is never trained on.
    expect(bad.turns).toHaveLength(1);

    n = 0;
    await expect(runRollouts({ sampler, renderer: rewriting, env, budgets, onPrefixMismatch: 'fail' }, [ex('q')], 2)).rejects.toBeInstanceOf(
      RolloutFailedError,
    );
  });

  it('initialMessages throwing for one example ends only that group, as errors', async () => {
    // Hazard: today one example's broken prompt rejects train()/evaluate() while other groups keep running.
    const { renderer, sampler } = await toolThenAnswer();
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const env: Environment = {
      ...inner,
      initialMessages: (e) => {
        if (e.id === 'bad') throw new Error('no such table');
        return inner.initialMessages(e);
      },
    };
    const groups = await runRollouts({ sampler, renderer, env, budgets }, [ex('a'), ex('bad'), ex('c')], 2);
    expect(groups.map((g) => g.map((t) => t.stopReason))).toEqual([
      ['answer', 'answer'],
      ['error', 'error'],
      ['answer', 'answer'],
    ]);
    expect(groups[1]![0]!.error).toMatchObject({ stage: 'initial_messages', message: 'no such table' });
  });

  it('fail_fast: the first failure aborts the other rollouts, which have all ended when the call rejects', async () => {
    // Hazard: tool calls of other groups still running after the step has failed.
    const { renderer, sampler } = await toolThenAnswer();
    let started = 0;
    let inFlight = 0;
    const env: Environment = {
      ...codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
      step: async (_action, ctx) => {
        started++;
        if (ctx.example.id === 'bad') {
          // Fail only once every other branch's tool call is running.
          while (started < 6) await new Promise((r) => setImmediate(r));
          throw new Error('sandbox crashed');
        }
        inFlight++;
        // A tool that only ends when its signal aborts (a long sandbox run).
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            inFlight--;
            reject(ctx.signal.reason);
          });
        });
      },
    };
    const run = runRollouts({ sampler, renderer, env, budgets, failure: { kind: 'fail_fast' } }, [ex('a'), ex('b'), ex('bad')], 2);
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RolloutFailedError);
    expect((err as RolloutFailedError).trajectoryId).toMatch(/^bad\//);
    expect(started).toBe(6);
    expect(inFlight).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toBe(6);
  });

  it('retry: a branch that failed is rolled out again from the group prompt and can succeed', async () => {
    const { renderer } = await localRenderer().then((r) => ({ renderer: r }));
    // First fork: sample 1 calls the failing tool; the retry's one-sample fork calls a good one.
    const sampler = scriptedSampler({
      renderer,
      script: ({ prompt, call, sample }) =>
        prompt.includes('<tool_response>') ? '\\boxed{1}' : call === 0 && sample === 1 ? toolCall('print(1)') : toolCall('print(0)'),
    });
    const env = throwingEnv(1);
    const dropped = await runGroup({ sampler, renderer, env, budgets }, { example: ex('q'), groupSize: 2 });
    expect(dropped.map((t) => t.stopReason)).toEqual(['answer', 'error']);
    const sampler2 = scriptedSampler({
      renderer,
      script: ({ prompt, call, sample }) =>
        prompt.includes('<tool_response>') ? '\\boxed{1}' : call === 0 && sample === 1 ? toolCall('print(1)') : toolCall('print(0)'),
    });
    const retried = await runGroup(
      { sampler: sampler2, renderer, env, budgets, failure: { kind: 'retry', maxRetries: 1 } },
      { example: ex('q'), groupSize: 2 },
    );
    expect(retried.map((t) => t.stopReason)).toEqual(['answer', 'answer']);
    expect(retried.map((t) => t.id)).toEqual(['q/0', 'q/1']);
  });

  it('trajectoryTimeoutMs ends a trajectory whose tool never returns as an error at stage timeout', async () => {
    const { renderer, sampler } = await toolThenAnswer();
    const env: Environment = { ...codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }), step: () => new Promise(() => {}) };
    const [t] = await runGroup({ sampler, renderer, env, budgets, trajectoryTimeoutMs: 30 }, { example: ex('q'), groupSize: 1 });
    expect(t!.stopReason).toBe('error');
    expect(t!.error?.stage).toBe('timeout');
  });

  it('abort reaches a sampling call in flight: its signal fires and the trajectory ends as aborted', async () => {
    // Hazard: abort() only checked between tool turns, so a long generation kept the step alive.
    const renderer = await localRenderer();
    let seen: AbortSignal | undefined;
    let calls = 0;
    const inner = scriptedSampler({ renderer, script: () => toolCall('print(0)') });
    const sampler: SamplingClient = {
      ...inner,
      sample: (p, params) => {
        if (calls++ === 0) return inner.sample(p, params);
        seen = params.signal;
        return new Promise(() => {}); // a generation that never ends by itself
      },
    };
    const ac = new AbortController();
    const env = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const run = runGroup({ sampler, renderer, env, budgets, signal: ac.signal }, { example: ex('q'), groupSize: 1 });
    while (!seen) await new Promise((r) => setImmediate(r));
    ac.abort();
    const [t] = await run;
    expect(seen.aborted).toBe(true);
    expect(t!.stopReason).toBe('aborted');
  });

  it('trajectory ids are unique when an example appears twice in one call (the env sees distinct ids)', async () => {
    const { renderer, sampler } = await toolThenAnswer();
    const seenIds: string[] = [];
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const env: Environment = { ...inner, step: (a, ctx) => (seenIds.push(ctx.trajectoryId), inner.step(a, ctx)) };
    const groups = await runRollouts({ sampler, renderer, env, budgets }, [ex('e0'), ex('e1'), ex('e0')], 2);
    const ids = groups.flat().map((t) => t.id);
    expect(ids).toEqual(['e0/0', 'e0/1', 'e1/0', 'e1/1', 'e0@1/0', 'e0@1/1']);
    expect(new Set(seenIds.filter((_, i, a) => a.indexOf(seenIds[i]!) === i)).size).toBe(6);
  });

  it('maxConcurrentGroups bounds the groups in flight', async () => {
    const { renderer, sampler } = await toolThenAnswer();
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const active = new Set<string>();
    let peak = 0;
    const env: Environment = {
      ...inner,
      step: async (a, ctx) => {
        active.add(ctx.example.id);
        peak = Math.max(peak, active.size);
        await new Promise((r) => setImmediate(r));
        const out = await inner.step(a, ctx);
        if (a.kind === 'answer') active.delete(ctx.example.id);
        return out;
      },
    };
    const groups = await runRollouts({ sampler, renderer, env, budgets, maxConcurrentGroups: 2 }, [ex('a'), ex('b'), ex('c'), ex('d')], 2);
    expect(groups.flat().every((t) => t.stopReason === 'answer')).toBe(true);
    expect(peak).toBe(2);
  });
});
