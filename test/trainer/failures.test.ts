import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  PromptPrefixError,
  RolloutFailedError,
  Trainer,
  codeInterpreter,
  type Environment,
  type Example,
  type Renderer,
  type Reward,
  type RewardResult,
  type TrainerOptions,
  type Trajectory,
  type TrajectoryEvent,
  type WarningEvent,
} from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';
import { assembleTrainingData, groupOutcome } from 'agentrl';

const dataset: Example[] = ['a', 'b'].map((id) => ({ id, question: `question ${id}`, answer: '1' }));

/** Branch g calls `print(g)` once, then answers `\boxed{g}`. */
async function setup() {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt, call, sample }) => {
      if (!prompt.includes('<tool_response>')) return toolCall(`print(${call === 0 || call === 1 ? sample : 9})`);
      const m = /print\((\d+)\)/.exec(prompt);
      return `\\boxed{${m?.[1] ?? 'x'}}`;
    },
  });
  return { renderer, sampler, backend: mockBackend({ renderer, sampler }) };
}

/** +1 for `\boxed{0}`, −1 otherwise (so groups are never degenerate). */
const reward: Reward = (t) => {
  const ok = t.finalText.includes('\\boxed{0}');
  return { reward: ok ? 1 : -1, correct: ok, validFormat: true };
};

function trainer(_renderer: Renderer, backend: ReturnType<typeof mockBackend>, over: Partial<TrainerOptions>): Trainer {
  return new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 3,
    questionsPerBatch: 2,
    maxSteps: 1,
    shuffle: false,
    progress: false,
    ...over,
  } as TrainerOptions);
}

function record(t: Trainer) {
  const warnings: WarningEvent[] = [];
  const trajectories: TrajectoryEvent[] = [];
  let metrics: Record<string, number> = {};
  t.on('warning', (w) => warnings.push(w));
  t.on('trajectory', (e) => trajectories.push(e));
  t.on('step', (e) => (metrics = { ...e.metrics }));
  return { warnings, trajectories, metrics: () => metrics };
}

/** A code interpreter whose `step` throws for `print(<bad>)` of example `exampleId`. */
function throwingEnv(exampleId: string, bad: number): Environment {
  const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
  return {
    ...inner,
    async step(action, ctx) {
      if (ctx.example.id === exampleId && action.kind === 'tool' && action.call.function.arguments['code'] === `print(${bad})`)
        throw new Error('tool exploded');
      return inner.step(action, ctx);
    },
  };
}

describe('Trainer: one bad trajectory never ends a run', () => {
  it('env.step throwing drops that trajectory with its cause, counts it, warns, and trains on the rest', async () => {
    const { renderer, backend } = await setup();
    const t = trainer(renderer, backend, { env: throwingEnv('a', 1) });
    const r = record(t);
    const summary = await t.train();
    expect(summary.steps).toBe(1);
    const bad = r.trajectories.find((e) => e.trajectory.id === 'a/1')!;
    expect(bad.trajectory.stopReason).toBe('error');
    expect(bad.reward).toMatchObject({ drop: true, failure: 'rollout_error' });
    expect(bad.reward.cause).toContain('tool exploded');
    expect(r.metrics()['rollout/error_rate']).toBeCloseTo(1 / 6);
    const w = r.warnings.find((x) => x.code === 'rollout_error')!;
    expect(w.message).toContain('a/1');
    expect(w.message).toContain('tool exploded');
    // 5 trajectories trained on (each one datum), the failed one not.
    const datums = backend.forwardBackwardCalls.flatMap((c) => c.datums);
    expect(datums).toHaveLength(5);
  });

  it('initialMessages throwing for one example: that group is dropped and counted, the step goes on', async () => {
    const { renderer, backend } = await setup();
    const inner = codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null });
    const env: Environment = {
      ...inner,
      initialMessages: (e) => {
        if (e.id === 'b') throw new Error('cannot open database');
        return inner.initialMessages(e);
      },
    };
    const t = trainer(renderer, backend, { env });
    const r = record(t);
    await expect(t.train()).resolves.toMatchObject({ steps: 1 });
    expect(r.metrics()['rollout/error_rate']).toBeCloseTo(0.5);
    expect(r.metrics()['rollout/dropped_group_rate']).toBeCloseTo(0.5);
    expect(r.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['rollout_error', 'dropped_groups']));
    expect(backend.forwardBackwardCalls.flatMap((c) => c.datums)).toHaveLength(3);
  });

  it('minSurvivors: a group with fewer surviving trajectories than asked is dropped whole', async () => {
    const { renderer, backend } = await setup();
    const t = trainer(renderer, backend, { env: throwingEnv('a', 1), rollout: { failure: { kind: 'drop', minSurvivors: 3 } } });
    const r = record(t);
    await t.train();
    expect(r.metrics()['rollout/dropped_group_rate']).toBeCloseTo(0.5);
    expect(backend.forwardBackwardCalls.flatMap((c) => c.datums)).toHaveLength(3); // only group b
  });

  it('fail_fast makes train() reject with RolloutFailedError', async () => {
    const { renderer, backend } = await setup();
    const t = trainer(renderer, backend, { env: throwingEnv('a', 1), rollout: { failure: { kind: 'fail_fast' } } });
    await expect(t.train()).rejects.toBeInstanceOf(RolloutFailedError);
    expect(backend.optimSteps).toHaveLength(0);
  });

  it('a throwing reward drops that sample (reward_error); a reward past rewardTimeoutMs drops it (reward_timeout)', async () => {
    const { renderer, backend } = await setup();
    const flaky: Reward = (traj) => {
      if (traj.id === 'a/0') throw new Error('judge crashed');
      if (traj.id === 'b/2') return new Promise<RewardResult>(() => {}); // never resolves
      return reward(traj, traj.example);
    };
    const t = trainer(renderer, backend, { reward: flaky, rewardTimeoutMs: 50 });
    const r = record(t);
    await expect(t.train()).resolves.toMatchObject({ steps: 1 });
    const byId = Object.fromEntries(r.trajectories.map((e) => [e.trajectory.id, e.reward]));
    expect(byId['a/0']).toMatchObject({ drop: true, failure: 'reward_error', cause: 'judge crashed' });
    expect(byId['b/2']).toMatchObject({ drop: true, failure: 'reward_timeout' });
    expect(r.metrics()['reward/dropped']).toBe(2);
    expect(r.warnings.find((w) => w.code === 'dropped_samples')?.message).toContain('judge crashed');
  });

  it('rewards run concurrently: six rewards that each wait for all the others finish', async () => {
    // Hazard: groups scored one after another (a slow reward per group adds up; here it would deadlock).
    const { renderer, backend } = await setup();
    let entered = 0;
    let release!: () => void;
    const all = new Promise<void>((r) => (release = r));
    const barrier: Reward = async (traj) => {
      if (++entered === 6) release();
      await all;
      return reward(traj, traj.example);
    };
    const t = trainer(renderer, backend, { reward: barrier, rewardTimeoutMs: 60_000 });
    await expect(t.train()).resolves.toMatchObject({ steps: 1 });
    expect(entered).toBe(6);
  });

  it('abort() ends train() while a reward hangs, without training on the step', async () => {
    const { renderer, backend } = await setup();
    let entered = false;
    const hung: Reward = () => ((entered = true), new Promise<RewardResult>(() => {}));
    const t = trainer(renderer, backend, { reward: hung, rewardTimeoutMs: 1e9, maxSteps: 5 });
    const run = t.train();
    while (!entered) await new Promise((r) => setImmediate(r));
    t.abort();
    const summary = await run;
    expect(summary).toMatchObject({ steps: 0, stopped: true });
    expect(backend.optimSteps).toHaveLength(0);
  });

  it('abort() ends train() while a sampling call hangs, and the call sees the abort', async () => {
    const renderer = await localRenderer();
    let seen: AbortSignal | undefined;
    const sampler = {
      ...scriptedSampler({ renderer, script: () => 'x' }),
      sample: (_p: readonly number[], params: { signal?: AbortSignal }) => ((seen = params.signal), new Promise<never>(() => {})),
    };
    const backend = mockBackend({ renderer, sampler });
    const t = trainer(renderer, backend, { maxSteps: 3 });
    const run = t.train();
    while (!seen) await new Promise((r) => setImmediate(r));
    t.abort();
    await expect(run).resolves.toMatchObject({ steps: 0, stopped: true });
    expect(seen.aborted).toBe(true);
  });
});

describe('Trainer: the prefix-mismatch policy', () => {
  /** A renderer whose template "rewrites history": every nextPrompt throws PromptPrefixError. */
  const rewriting = (r: Renderer): Renderer => ({
    ...r,
    nextPrompt: () => {
      throw new PromptPrefixError('history rewritten');
    },
  });

  it("'drop' (default) drops every rewritten trajectory with a warning; 'fail' rejects; 'split' re-renders and trains on them", async () => {
    const r = rewriting(await localRenderer());
    // A fresh scripted sampler per run (its script counts calls).
    const backend = async () => mockBackend({ renderer: r, sampler: (await setup()).sampler });

    const b1 = await backend();
    const dropT = trainer(r, b1, {});
    const rec = record(dropT);
    await dropT.train();
    expect(rec.trajectories.every((e) => e.trajectory.stopReason === 'error' && e.trajectory.error?.code === 'PROMPT_PREFIX_MISMATCH')).toBe(true);
    expect(rec.metrics()['rollout/error_rate']).toBe(1);
    expect(b1.forwardBackwardCalls).toHaveLength(0);

    await expect(trainer(r, await backend(), { onPrefixMismatch: 'fail' }).train()).rejects.toBeInstanceOf(RolloutFailedError);

    const b3 = await backend();
    const splitT = trainer(r, b3, { onPrefixMismatch: 'split' });
    const rec3 = record(splitT);
    await splitT.train();
    expect(rec3.trajectories.map((e) => e.trajectory.stopReason)).toEqual(Array(6).fill('answer'));
    expect(rec3.trajectories.every((e) => e.trajectory.turns.length === 2)).toBe(true);
    expect(b3.forwardBackwardCalls.flatMap((c) => c.datums).length).toBeGreaterThanOrEqual(6);
  });

  it("assembleTrainingData onPrefixMismatch 'drop' leaves out a trajectory whose turns do not extend each other and names it", () => {
    const turn = (prompt: number[], completion: number[]) => ({
      promptTokens: prompt,
      completionTokens: completion,
      logprobs: completion.map(() => -1),
      text: '',
      stopReason: 'stop' as const,
      action: { kind: 'answer' as const, content: '' },
    });
    const base = { example: dataset[0]!, groupIndex: 0, messages: [], stopReason: 'answer' as const, toolCalls: 0, finalText: '' };
    const good = { ...base, id: 'good', turns: [turn([1, 2], [3]), turn([1, 2, 3, 4], [5])] } as unknown as Trajectory;
    const bad = { ...base, id: 'bad', turns: [turn([1, 2], [3]), turn([9, 9, 9, 9], [5])] } as unknown as Trajectory;
    const group = [{ trajectories_G: [good, bad], outcome: groupOutcome([{ reward: 1 }, { reward: -1 }]) }];
    const out = assembleTrainingData(group, { onPrefixMismatch: 'drop' });
    expect(out.datums_D).toHaveLength(1);
    expect(out.dropped.map((d) => d.source.id)).toEqual(['bad']);
    expect(assembleTrainingData(group, { onPrefixMismatch: 'split' }).datums_D).toHaveLength(3);
    expect(() => assembleTrainingData(group, { onPrefixMismatch: 'fail' })).toThrow(PromptPrefixError);
  });
});

describe('Trainer: settings that cannot train are refused', () => {
  it('groupSize 1 with group-centred advantages is a ConfigError saying why', async () => {
    const { renderer, backend } = await setup();
    for (const normalize of ['none', 'std', 'rloo'] as const) {
      let err: unknown;
      try {
        trainer(renderer, backend, { groupSize: 1, advantage: { normalize } });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues[0]).toMatchObject({ path: 'groupSize' });
      expect((err as ConfigError).issues[0]!.message).toMatch(/advantage 0/);
    }
  });

  it('minSurvivors above groupSize is a ConfigError (every group would be dropped)', async () => {
    const { renderer, backend } = await setup();
    expect(() => trainer(renderer, backend, { groupSize: 3, rollout: { failure: { kind: 'drop', minSurvivors: 4 } } })).toThrow(
      /rollout\.failure\.minSurvivors: 4 exceeds groupSize 3/,
    );
  });

  it('a backend that cannot reproduce temperature or truncation in its learner is refused; T = 1 (and greedy) are fine', async () => {
    const { renderer, backend } = await setup();
    const { samplingSupport: _ignored, ...plain } = backend;
    const noSupport = plain as typeof backend;
    const issues = (sampling: object) => {
      try {
        trainer(renderer, noSupport, { sampling });
        return [];
      } catch (e) {
        return (e as ConfigError).issues.map((i) => i.path);
      }
    };
    expect(issues({ temperature: 1.5 })).toEqual(['sampling.temperature']);
    expect(issues({ temperature: 1, topP: 0.9 })).toEqual(['sampling.topP']);
    expect(issues({ temperature: 1, topK: 20 })).toEqual(['sampling.topK']);
    expect(issues({ temperature: 1 })).toEqual([]);
    expect(issues({ temperature: 0 })).toEqual([]);
    expect(issues({ temperature: 1.5, topP: 0.9 })).toEqual(['sampling.temperature', 'sampling.topP']);
  });

  it('the Trainer hands its sampling settings to every forwardBackward', async () => {
    const { renderer, backend } = await setup();
    const seen: unknown[] = [];
    const fb = backend.forwardBackward.bind(backend);
    const spy = {
      ...backend,
      forwardBackward: (d: Parameters<typeof fb>[0], l: Parameters<typeof fb>[1], o: Parameters<typeof fb>[2]) => (seen.push(o?.sampling), fb(d, l, o)),
    };
    const t = trainer(renderer, spy as typeof backend, { sampling: { temperature: 0.7, topP: 0.95 } });
    await t.train();
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s).toMatchObject({ temperature: 0.7, topP: 0.95 });
  });
});
