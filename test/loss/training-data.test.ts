import { describe, expect, it } from 'vitest';
import { assembleTrainingData, groupOutcome, type DatumSource } from 'agentrl/internal';

const traj = (first: number): DatumSource => ({ turns: [{ promptTokens: [first, first + 1], completionTokens: [7, 8], logprobs: [-1, -2] }] });
const empty: DatumSource = { turns: [] };

describe('assembleTrainingData', () => {
  it('keeps survivors of trainable groups with their advantages, in group then member order', () => {
    const a = [traj(10), traj(20), traj(30)];
    const b = [traj(40), traj(50)];
    const out = assembleTrainingData([
      { trajectories_G: a, outcome: groupOutcome([{ reward: 1 }, { reward: 0, drop: true }, { reward: -1 }]) },
      { trajectories_G: b, outcome: groupOutcome([{ reward: 1 }, { reward: 1 }]) }, // degenerate: skipped
    ]);
    expect(out.sources_D).toEqual([a[0], a[2]]);
    expect(out.datums_D.map((d) => d.advantages.at(-1))).toEqual([1, -1]);
  });

  it('skips dropped groups and members without turns; keeps degenerate groups when asked', () => {
    const a = [traj(10), empty];
    const out = assembleTrainingData(
      [
        { trajectories_G: a, outcome: groupOutcome([{ reward: 1 }, { reward: -1 }]) },
        {
          trajectories_G: [traj(1), traj(2)],
          outcome: groupOutcome([
            { reward: 1, drop: true },
            { reward: 0, drop: true },
          ]),
        },
        { trajectories_G: [traj(3), traj(4)], outcome: groupOutcome([{ reward: 2 }, { reward: 2 }]) },
      ],
      { skipDegenerateGroups: false },
    );
    // group 1: only the member with turns; group 2: dropped whole; group 3: degenerate but kept (advantage 0).
    expect(out.sources_D).toHaveLength(3);
    expect(out.sources_D[0]).toBe(a[0]);
    expect(out.datums_D.slice(1).every((d) => d.advantages.every((x) => x === 0))).toBe(true);
  });
});
