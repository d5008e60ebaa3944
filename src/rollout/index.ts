export { runGroup, runRollouts } from './run-group.js';
export { runBranch, type BranchInit } from './branch.js';
export {
  DEFAULT_BUDGETS,
  type RolloutBudgets,
  type RolloutSampling,
  type RolloutContext,
  type RolloutFailureStrategy,
  type TurnEvent,
} from './types.js';
export { demonstrationDatum, type DemonstrationTurn } from './demonstration.js';
