export { runGroup, runRollouts } from './run-group.js';
export { runBranch } from './branch.js';
export { DEFAULT_BUDGETS, type RolloutBudgets, type RolloutSampling, type RolloutContext, type TurnEvent } from './types.js';
export { demonstrationDatum, type DemonstrationTurn } from './demonstration.js';
