export { evaluate, type EvaluateOptions, type EvalResult, type EvalRecord } from './evaluate.js';
export { evalTable, type EvalTable } from './eval-table.js';
export { passAtK, passAtKMetrics } from './pass-at-k.js';
