import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { groupOutcome } from 'agentrl';

describe('groupOutcome', () => {
  it('leaves dropped members out of the baseline and gives them advantage 0', () => {
    // Hazard: a dropped sample's placeholder reward 0 pulling the group mean.
    const o = groupOutcome([{ reward: 1 }, { reward: 0, drop: true }, { reward: -1 }]);
    expect(o.advantages_G).toEqual([1, 0, -1]);
    expect(o.kept_G).toEqual([true, false, true]);
    expect(o.dropped).toBe(1);
    expect(o.droppedGroup).toBe(false);
  });

  it('drops the whole group below minSurvivors (and when nobody survived)', () => {
    const o = groupOutcome([{ reward: 1 }, { reward: 0, drop: true }, { reward: -1, drop: true }], { minSurvivors: 2 });
    expect(o.droppedGroup).toBe(true);
    expect(o.degenerate).toBe(false);
    expect(o.advantages_G).toEqual([0, 0, 0]);
    expect(groupOutcome([{ reward: 1, drop: true }]).droppedGroup).toBe(true);
  });

  it('marks a group whose survivors all scored the same as degenerate', () => {
    const o = groupOutcome([{ reward: 1 }, { reward: 5, drop: true }, { reward: 1 }]);
    expect(o.degenerate).toBe(true);
    expect(o.advantages_G).toEqual([0, 0, 0]);
  });

  it('centred advantages of the survivors sum to 0 (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ reward: fc.integer({ min: -3, max: 3 }), drop: fc.boolean() }), { minLength: 1, maxLength: 8 }), (rewards_G) => {
        const o = groupOutcome(rewards_G);
        expect(o.advantages_G).toHaveLength(rewards_G.length);
        const sum = o.advantages_G.reduce((a, b) => a + b, 0);
        expect(Math.abs(sum)).toBeLessThan(1e-9);
        rewards_G.forEach((r, g) => {
          if (r.drop) expect(o.advantages_G[g]).toBe(0);
        });
      }),
    );
  });
});
