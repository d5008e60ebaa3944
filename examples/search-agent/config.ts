/** Settings shared by the search-agent example's scripts (embedded backend; one-fact passages, 192-token context). */
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const PATHS = {
  /** One short passage per (country, fact); regenerate with `node --import tsx examples/search-agent/data/build-facts.ts`. */
  corpus: here('./data/facts-corpus.jsonl'),
  train: here('./data/facts-train.jsonl'),
  test: here('./data/facts-test.jsonl'),
  /** The shipped cold-start checkpoint (regenerate with `npm run search-agent:sft`). */
  sftCheckpoint: here('./checkpoints/sft'),
  runs: here('../../runs/search-agent'),
};

/** Model shape of the embedded transformer (same context in SFT, RL and eval: one compiled shape set). */
export const MODEL = { layers: 2, dModel: 128, heads: 4, contextTokens: 192 } as const;

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

/** Sampling settings for RL rollouts and for both evaluations (identical across compared runs). */
export const SAMPLING = { temperature: 1, topP: 1 } as const;
