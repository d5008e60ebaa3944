export type { Reward, SyncReward, GroupReward } from '../types/reward.js';
export { addGroupRewards } from './group-reward.js';
export * from './math/index.js';
export { exactMatch, normalizeAnswer, extractTaggedAnswer, goldAliases, type ExactMatchOptions } from './exact-match.js';
export { sqlExecutionMatch, type SqlExecutionMatchOptions } from './sql-execution-match.js';
export {
  answerOf,
  answerPart,
  endedValidly,
  unscoredResult,
  withValidEnding,
  TOKEN_BUDGET_STOPS,
  VALID_ENDINGS,
  type Ending,
  type EndingOptions,
  type WithValidEndingOptions,
} from './ending.js';
export * from './judge/index.js';
