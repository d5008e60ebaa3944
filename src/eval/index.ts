export { evaluate, DEFAULT_EVAL_SEED, type EvaluateOptions, type EvalResult, type EvalRecord } from './evaluate.js';
export { evalTable, type EvalTable, type EvalTableOptions } from './eval-table.js';
export { passAtK, passAtKMetrics } from './pass-at-k.js';
export { clusteredMeanInterval, wilsonInterval, type ShareInterval } from './interval.js';
