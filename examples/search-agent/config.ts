/** Settings shared by the search-agent example's scripts (embedded backend; one-fact passages, 192-token context). */
import { examplePaths } from '../shared/config.js';

export { MODEL, SAMPLING } from '../shared/config.js';

const { here, ...dirs } = examplePaths(import.meta.url, 'search-agent');

export const PATHS = {
  /** One short passage per (country, fact); regenerate with `node --import tsx examples/search-agent/data/build-facts.ts`. */
  corpus: here('./data/facts-corpus.jsonl'),
  train: here('./data/facts-train.jsonl'),
  test: here('./data/facts-test.jsonl'),
  /** `sftCheckpoint`: the shipped cold-start checkpoint (regenerate with `npm run search-agent:sft`); `runs`: run folders. */
  ...dirs,
};

/** Passages per search. */
export const TOP_K = 1;

/** Search calls allowed per trajectory (enforced by `BUDGETS.maxToolCalls`; the env itself sets no limit, which keeps its "last search" reminder out of the short observations). */
export const MAX_SEARCHES = 2;

/** Per-trajectory budgets, in tokens (a demonstration is 50–170 tokens of the embedded tokenizer). */
export const BUDGETS = {
  maxToolCalls: MAX_SEARCHES,
  maxTurns: MAX_SEARCHES + 1,
  maxTrajectoryTokens: 192,
  maxTurnTokens: 48,
  maxToolResponseTokens: 40,
} as const;
