import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  Trainer,
  type Environment,
  type Example,
  type GroupEvent,
  type Reward,
  type TrainerOptions,
  type TrajectoryEvent,
  type WarningEvent,
} from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

/** Branch g answers `\boxed{g}`; the environment ends every trajectory on its answer, after `delay(example, g)`. */
async function setup(delay: (ex: Example, groupIndex: number) => Promise<void> = async () => {}) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample}}` });
  const inFlight = { now: 0, max: 0 };
  const env: Environment = {
    name: 'delayed',
    tools: [],
    initialMessages: (ex) => [{ role: 'user', content: ex.question }],
    step: async (_action, ctx) => {
      inFlight.max = Math.max(inFlight.max, ++inFlight.now);
      try {
        await delay(ctx.example, ctx.groupIndex);
      } finally {
        inFlight.now--;
      }
      return { done: true };
    },
  };
  return { renderer, sampler, env, inFlight, backend: mockBackend({ renderer, sampler }) };
}

const reward: Reward = (t) => ({ reward: t.finalText.includes('\\boxed{0}') ? 1 : -1, correct: t.finalText.includes('\\boxed{0}'), validFormat: true });
const dataset = (n: number): Example[] => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, question: `question ${i}`, answer: '0' }));

function options(s: Awaited<ReturnType<typeof setup>>, over: Partial<TrainerOptions>): TrainerOptions {
  return {
    backend: s.backend,
    env: s.env,
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: dataset(8),
    groupSize: 2,
    questionsPerBatch: 2,
    maxSteps: 1,
    shuffle: false,
    progress: false,
    ...over,
  } as TrainerOptions;
}

describe('streaming groups', () => {
  it('scores a trajectory as soon as it ends, while the rest of its group is still running', async () => {
    // Hazard: rewards start only after the slowest rollout of the batch (round-synchronous scoring).
    let scored!: () => void;
    const firstScored = new Promise<void>((r) => (scored = r));
    let waitedForScore = true;
    const s = await setup(async (_ex, g) => {
      if (g !== 1) return;
      // Branch 1 ends only once another trajectory was scored (or, failing that, after 3 s).
      waitedForScore = await Promise.race([firstScored.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
    });
    const t = new Trainer(options(s, { questionsPerBatch: 1, reward: (tr, ex) => (scored(), reward(tr, ex)) }));
    await t.train();
    expect(waitedForScore).toBe(true);
  });

  it('keeps at most maxConcurrentTrajectories trajectories in flight', async () => {
    const s = await setup(() => new Promise((r) => setTimeout(r, 20)));
    const t = new Trainer(options(s, { questionsPerBatch: 4, rollout: { maxConcurrentTrajectories: 4 } }));
    const summary = await t.train();
    expect(summary.lastMetrics['rollout/trajectories']).toBe(8);
    expect(s.inFlight.max).toBe(4); // two groups of 2 at a time, not all 8
  });

  it('on-policy streaming (maxStaleness 0) trains on exactly the batch, with staleness 0 and versions recorded', async () => {
    const s = await setup();
    const events: TrajectoryEvent[] = [];
    const t = new Trainer(options(s, { maxSteps: 3 }));
    t.on('trajectory', (e) => events.push(e));
    const summary = await t.train();
    expect(events.map((e) => `${e.step}:${e.trajectory.example.id}/${e.trajectory.groupIndex}`)).toEqual([
      '1:q0/0',
      '1:q0/1',
      '1:q1/0',
      '1:q1/1',
      '2:q2/0',
      '2:q2/1',
      '2:q3/0',
      '2:q3/1',
      '3:q4/0',
      '3:q4/1',
      '3:q5/0',
      '3:q5/1',
    ]);
    expect(events.map((e) => e.trajectory.weightsVersion)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(summary.lastMetrics['rollout/staleness_mean']).toBe(0);
    expect(summary.lastMetrics['rollout/stale_dropped']).toBe(0);
    expect(summary.lastMetrics).toHaveProperty('time/sampler_idle_s');
    expect(summary.lastMetrics).toHaveProperty('time/learner_idle_s');
  });

  it('with maxStaleness 1, a group older than one weights version is dropped and counted, never trained on', async () => {
    // Example q1 is slow: it is still running two updates after it started, so it must not be trained on.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    setTimeout(() => release(), 5000).unref();
    const s = await setup((ex) => (ex.id === 'q1' ? gate : Promise.resolve()));
    const events: TrajectoryEvent[] = [];
    const t = new Trainer(options(s, { questionsPerBatch: 1, maxSteps: 4, async: { maxStaleness: 1 } }));
    t.on('trajectory', (e) => events.push(e));
    let staleDropped = 0;
    t.on('step', (e) => {
      staleDropped += e.metrics['rollout/stale_dropped'] ?? 0;
      if (e.step === 2) release();
    });
    await t.train();
    expect(staleDropped).toBe(1);
    expect(events.some((e) => e.trajectory.example.id === 'q1')).toBe(false);
    for (const e of events) expect(e.step - 1 - e.trajectory.weightsVersion!).toBeLessThanOrEqual(1);
  });

  it('adds a group reward to the members before advantages', async () => {
    const s = await setup();
    const groups: GroupEvent[] = [];
    // Rewards are [+1, −1]; the group reward gives member 1 +3, so the advantages flip sign.
    const t = new Trainer(options(s, { questionsPerBatch: 1, groupReward: ({ trajectories_G }) => trajectories_G.map((_, g) => (g === 1 ? 3 : 0)) }));
    t.on('group', (e) => groups.push(e));
    await t.train();
    expect(groups[0]!.rewards).toEqual([1, 2]);
    expect(groups[0]!.advantages).toEqual([-0.5, 0.5]);
  });

  it('refuses maxStaleness > 0 without streaming', async () => {
    const s = await setup();
    expect(() => new Trainer(options(s, { rollout: { streaming: false }, async: { maxStaleness: 1 } }))).toThrow(ConfigError);
  });

  it('a run with maxStaleness 1 resumes from its checkpoint with every step once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-stream-'));
    const s = await setup();
    await new Trainer(options(s, { maxSteps: 2, async: { maxStaleness: 1 }, logDir: dir, checkpointEvery: 1 })).train();
    const state = JSON.parse(await readFile(join(dir, 'checkpoints', 'step-00002', 'trainer-state.json'), 'utf8')) as { examplesConsumed: number };
    expect(state.examplesConsumed).toBe(4);
    const summary = await new Trainer(options(s, { maxSteps: 4, async: { maxStaleness: 1 }, logDir: dir, checkpointEvery: 1, resume: 'latest' })).train();
    expect(summary.resumedFromStep).toBe(2);
    const steps = (await readFile(join(dir, 'metrics.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { step: number }).step);
    expect(steps).toEqual([1, 2, 3, 4]);
  });
});

describe('group rewards that fail', () => {
  it('a group reward that throws, or returns a non-finite value, drops the members with the cause; training goes on', async () => {
    const s = await setup();
    const groups: GroupEvent[] = [];
    const t = new Trainer(
      options(s, {
        questionsPerBatch: 1,
        groupReward: () => {
          throw new Error('pairwise judge down');
        },
      }),
    );
    t.on('group', (e) => groups.push(e));
    await t.train();
    expect(groups[0]!.dropped).toBe(2);

    const bad = new Trainer(options(s, { questionsPerBatch: 1, groupReward: () => [Number.NaN, 0] }));
    const seen: WarningEvent[] = [];
    bad.on('warning', (w) => seen.push(w));
    await bad.train();
    expect(seen.some((w) => w.code === 'dropped_samples' && /not a finite/.test(w.message))).toBe(true);
  });
});
