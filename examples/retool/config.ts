/** Settings shared by the ReTool example's scripts (embedded backend, scaled down from the seed). */
import { examplePaths } from '../shared/config.js';

export { MODEL, SAMPLING } from '../shared/config.js';

const { here, ...dirs } = examplePaths(import.meta.url, 'retool');

export const PATHS = {
  data: here('./data'),
  train: here('./data/train.jsonl'),
  dev: here('./data/dev.jsonl'),
  /** `sftCheckpoint`: the shipped cold-start checkpoint (regenerate with `npm run retool:sft`); `runs`: run folders. */
  ...dirs,
};

/** Per-trajectory budgets (seed §8.4.2), sized for a 192-token context (a demonstration is 60–150 tokens). */
export const BUDGETS = {
  maxToolCalls: 3,
  maxTurns: 4,
  maxTrajectoryTokens: 192,
  maxTurnTokens: 64,
  maxToolResponseTokens: 16,
} as const;

/** Per-call sandbox time limit (ms). */
export const TOOL_TIMEOUT_MS = 5_000;
