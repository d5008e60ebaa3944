/** Settings shared by the sql-agent example's scripts (embedded backend; templated lookups, 192-token context). */
import { examplePaths } from '../shared/config.js';

export { MODEL, SAMPLING } from '../shared/config.js';

const { here, ...dirs } = examplePaths(import.meta.url, 'sql-agent');

export const PATHS = {
  /** The example database (`data/build-data.ts` builds it from country-json). */
  database: here('./data/countries.sqlite'),
  /** Templated lookup questions; regenerate with `node --import tsx examples/sql-agent/data/build-lookups.ts`. */
  train: here('./data/lookup-train.jsonl'),
  test: here('./data/lookup-test.jsonl'),
  /** `sftCheckpoint`: the shipped cold-start checkpoint (regenerate with `npm run sql-agent:sft`); `runs`: run folders. */
  ...dirs,
};

/** Assistant turns per episode, the final answer included (so one exploratory query). */
export const MAX_TURNS = 2;

/** Rows shown per query result. */
export const ROW_LIMIT = 3;

/** Per-query deadline (ms). */
export const QUERY_TIMEOUT_MS = 5_000;

/** Per-trajectory budgets, in tokens (a demonstration is 60–160 tokens of the embedded tokenizer). */
export const BUDGETS = {
  maxToolCalls: MAX_TURNS - 1,
  maxTurns: MAX_TURNS,
  maxTrajectoryTokens: 192,
  maxTurnTokens: 64,
  maxToolResponseTokens: 48,
} as const;
