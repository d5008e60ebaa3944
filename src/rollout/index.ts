export { runGroup, runRollouts } from './run-group.js';
export { runBranch, type BranchInit } from './branch.js';
export {
  DEFAULT_BUDGETS,
  type RolloutBudgets,
  type RolloutSampling,
  type RolloutContext,
  type RunGroupOptions,
  type RolloutFailureStrategy,
  type TurnEvent,
  type DrivenEnvironment,
  type DrivenTrajectory,
  type DrivenTrajectoryContext,
} from './types.js';
export { isDrivenEnvironment } from './driven-group.js';
export { demonstrationDatum, type DemonstrationInput } from './demonstration.js';
export { checkDemonstration, type DemonstrationTurn, type DemonstrationCall, type TurnObservation } from './demonstration-turn.js';
export { DEFAULT_STEP_TIMEOUT_MS } from './abortable.js';
