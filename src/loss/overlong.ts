import type { Turn } from '../types/trajectory.js';

/**
 * DAPO's overlong handling (see {@link overlongPenalty}). The soft penalty `{ bufferTokens, penalty, maxResponseTokens? }`
 * measures the trajectory's response ({@link responseTokens}: the tokens the policy sampled, over every turn) against
 * `maxResponseTokens` (default `budgets.maxTrajectoryTokens`); `{ filter: true }` masks truncated samples out of the loss.
 */
export type OverlongConfig =
  | {
      /** Tokens before the budget where the linear penalty starts (DAPO's `L_cache`, verl `overlong_buffer.len`); < the budget. */
      readonly bufferTokens: number;
      /** Penalty at and past the budget, ≥ 0 (DAPO: 1; verl `overlong_buffer.penalty_factor`). */
      readonly penalty: number;
      /**
       * The response budget `L_max` in sampled tokens (DAPO's max response length, verl `data.max_response_length`).
       * @default `budgets.maxTrajectoryTokens` (after it is capped at the backend's context)
       */
      readonly maxResponseTokens?: number;
      readonly filter?: false;
    }
  | { readonly filter: true };

/**
 * The length DAPO's overlong penalty measures: the tokens the policy sampled over the whole trajectory, i.e. the sum of
 * every turn's `completionTokens` (stop tokens included). Prompts, chat-template scaffolding and tool observations
 * are not counted — the same answer has the same length under a 20-token and a 300-token question.
 */
export function responseTokens(t: { readonly turns: readonly Pick<Turn, 'completionTokens'>[] }): number {
  return t.turns.reduce((n, turn) => n + turn.completionTokens.length, 0);
}

/**
 * DAPO's soft overlong punishment (Yu et al. 2025, eq. 13), added to a sample's reward: with `L` its response length
 * in tokens ({@link responseTokens}),
 * `L_max` the budget and `B = bufferTokens`, `0` when `L ≤ L_max − B`, `−penalty·(L − (L_max − B))/B` inside the
 * buffer, `−penalty` past the budget. DAPO uses `penalty` 1 with `B` = 4096 of 20480 tokens.
 */
export function overlongPenalty(length: number, maxTokens: number, bufferTokens: number, penalty: number): number {
  const start = maxTokens - bufferTokens;
  if (length <= start) return 0;
  if (length > maxTokens) return -penalty;
  return (-penalty * (length - start)) / bufferTokens;
}
