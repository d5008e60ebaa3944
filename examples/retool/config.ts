/** Settings shared by the ReTool example's scripts (embedded backend, scaled down from the seed). */
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const PATHS = {
  data: here('./data'),
  train: here('./data/train.jsonl'),
  dev: here('./data/dev.jsonl'),
  /** The shipped cold-start checkpoint (regenerate with `npm run retool:sft`). */
  sftCheckpoint: here('./checkpoints/sft'),
  runs: here('../../runs/retool'),
};

/** Model shape of the embedded transformer used by the example. */
export const MODEL = { layers: 2, dModel: 128, heads: 4, contextTokens: 192 } as const;

/** Per-trajectory budgets (seed §8.4.2), sized for a 192-token context (a demonstration is 60–150 tokens). */
export const BUDGETS = {
  maxToolCalls: 3,
  maxTurns: 4,
  maxTrajectoryTokens: 192,
  maxTurnTokens: 64,
  maxToolResponseTokens: 16,
} as const;

/** Sampling settings for RL rollouts and for both evaluations (kept identical across compared runs). */
export const SAMPLING = { temperature: 1, topP: 1 } as const;

/** Per-call sandbox time limit (ms). */
export const TOOL_TIMEOUT_MS = 5_000;
