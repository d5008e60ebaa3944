import { describe, expect, it } from 'vitest';
import { turnSamplingParams, turnTokenLimit } from '../../src/types/turn-sampling.js';

describe('a turn is sampled one way, in the engine and for driven agents', () => {
  it('the turn clamp: min(asked, maxTurnTokens, room), and whether the room bounds it', () => {
    const budgets = { maxTurnTokens: 100, maxTrajectoryTokens: 1000 };
    expect(turnTokenLimit(budgets, 200)).toEqual({ maxTokens: 100, room: 800, limitedByRoom: false });
    expect(turnTokenLimit(budgets, 950)).toEqual({ maxTokens: 50, room: 50, limitedByRoom: true });
    expect(turnTokenLimit(budgets, 200, 30)).toEqual({ maxTokens: 30, room: 800, limitedByRoom: false });
    expect(turnTokenLimit(budgets, 1000).room).toBe(0);
  });

  it('sampling parameters: the rollout’s distribution, never the caller’s, with this call’s limit, stops and seed', () => {
    const signal = new AbortController().signal;
    expect(turnSamplingParams(undefined, { numSamples: 2, maxTokens: 5, stop: [7], seed: undefined, signal })).toEqual({
      numSamples: 2,
      maxTokens: 5,
      temperature: 1,
      topP: 1,
      stop: [7],
      signal,
    });
    expect(
      turnSamplingParams(
        { temperature: 0.7, topP: 0.9, topK: 20, seed: 1 },
        { numSamples: 1, maxTokens: 5, stop: undefined, seed: 42, topLogprobs: 3, signal },
      ),
    ).toEqual({
      numSamples: 1,
      maxTokens: 5,
      temperature: 0.7,
      topP: 0.9,
      topK: 20,
      topLogprobs: 3,
      seed: 42,
      signal,
    });
  });
});
