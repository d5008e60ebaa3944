// Issue 24 §6: an aborted step is visible — every trajectory of it is emitted once, flagged `aborted`.
import { describe, expect, it } from 'vitest';
import { Trainer, codeInterpreter, type Example, type Reward, type RewardResult, type SamplingParams, type TrajectoryEvent, type GroupEvent } from 'agentrl';
import { fakeSandbox, mockBackend, scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../helpers/local-renderer.js';

const dataset: Example[] = ['a', 'b'].map((id) => ({ id, question: `question ${id}`, answer: '1' }));
const reward: Reward = (t) => ({ reward: t.finalText.includes('{1}') ? 1 : -1, correct: false, validFormat: true });

/** Answers group `a` at once; group `b`'s sampling call hangs until its signal aborts. */
async function halfHanging() {
  const renderer = await localRenderer();
  const inner = scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample % 2}}` });
  let hung = false;
  const sampler = {
    ...inner,
    sample(prompt: readonly number[], params: SamplingParams) {
      if (!renderer.decode(prompt).includes('question b')) return inner.sample(prompt, params);
      hung = true;
      return new Promise<never>((_, reject) => params.signal?.addEventListener('abort', () => reject(params.signal!.reason), { once: true }));
    },
  };
  return { renderer, backend: mockBackend({ renderer, sampler }), isHung: () => hung };
}

function trainer(backend: ReturnType<typeof mockBackend>, over: Record<string, unknown>): Trainer {
  return new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }),
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset,
    groupSize: 3,
    questionsPerBatch: 2,
    maxSteps: 4,
    shuffle: false,
    progress: false,
    ...over,
  } as never);
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('abort() emits the aborted step\u2019s trajectories', () => {
  for (const streaming of [false, true]) {
    it(`${streaming ? 'streaming' : 'round-synchronous'}: each trajectory once, flagged aborted, finished ones with their stop reason; no group event`, async () => {
      const { backend, isHung } = await halfHanging();
      const t = trainer(backend, { rollout: { streaming } });
      const trajectories: TrajectoryEvent[] = [];
      const groups: GroupEvent[] = [];
      t.on('trajectory', (e) => trajectories.push(e));
      t.on('group', (e) => groups.push(e));
      const run = t.train();
      await until(isHung);
      await new Promise((r) => setTimeout(r, 30)); // let group a finish
      t.abort();
      await expect(run).resolves.toMatchObject({ steps: 0, stopped: true });
      expect(groups).toHaveLength(0);
      expect(trajectories).toHaveLength(6);
      expect(new Set(trajectories.map((e) => e.trajectory.id)).size).toBe(6);
      for (const e of trajectories) {
        expect(e.aborted).toBe(true);
        expect(e.step).toBe(1);
      }
      const stops = (id: string) => trajectories.filter((e) => e.trajectory.example.id === id).map((e) => e.trajectory.stopReason);
      expect(stops('a')).toEqual(['answer', 'answer', 'answer']);
      expect(stops('b')).toEqual(['aborted', 'aborted', 'aborted']);
      for (const e of trajectories.filter((x) => x.trajectory.example.id === 'b'))
        expect(e.reward).toMatchObject({ failure: 'aborted', drop: true, reward: 0 });
      expect(backend.optimSteps).toHaveLength(0);
    });
  }

  it('abort while rewards hang: every trajectory of the step is emitted aborted, with an aborted reward', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '\\boxed{1}' });
    const backend = mockBackend({ renderer, sampler });
    let entered = 0;
    const hung: Reward = () => (entered++, new Promise<RewardResult>(() => {}));
    for (const streaming of [false, true]) {
      entered = 0;
      const t = trainer(backend, { reward: hung, rewardTimeoutMs: 1e9, rollout: { streaming } });
      const seen: TrajectoryEvent[] = [];
      t.on('trajectory', (e) => seen.push(e));
      const run = t.train();
      await until(() => entered >= 6);
      t.abort();
      await expect(run).resolves.toMatchObject({ steps: 0 });
      expect(seen).toHaveLength(6);
      expect(seen.every((e) => e.aborted === true && e.reward.failure === 'aborted' && e.trajectory.stopReason === 'answer')).toBe(true);
    }
  });

  it('a step that completes emits no aborted flag', async () => {
    const renderer = await localRenderer();
    const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: ({ sample }) => `\\boxed{${sample % 2}}` }) });
    const t = trainer(backend, { maxSteps: 1 });
    const seen: TrajectoryEvent[] = [];
    t.on('trajectory', (e) => seen.push(e));
    await t.train();
    expect(seen).toHaveLength(6);
    expect(seen.some((e) => e.aborted)).toBe(false);
  });
});
