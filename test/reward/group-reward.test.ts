import { describe, expect, it } from 'vitest';
import { addGroupRewards, DatumShapeError, type RewardResult } from 'agentrl/internal';

const r = (reward: number, drop = false): RewardResult => ({ reward, correct: reward > 0, validFormat: true, ...(drop ? { drop } : {}) });

describe('addGroupRewards', () => {
  it('adds each member its group reward and leaves dropped members alone', () => {
    expect(addGroupRewards([r(1), r(0, true), r(-1)], [0.5, 9, -0.5]).map((x) => x.reward)).toEqual([1.5, 0, -1.5]);
  });
  it('refuses a length mismatch or a non-finite value', () => {
    expect(() => addGroupRewards([r(1), r(0)], [1])).toThrow(DatumShapeError);
    expect(() => addGroupRewards([r(1)], [Number.NaN])).toThrow(/not a finite/);
  });
});
