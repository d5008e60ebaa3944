export { evaluate, type EvaluateOptions, type EvalResult, type EvalRecord } from './evaluate.js';
