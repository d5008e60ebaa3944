export { extractLastBoxed, extractBoxedAnswer, findBoxes, type BoxMatch, type ExtractBoxedOptions } from './extract-boxed.js';
export { extractAnswer, type ExtractAnswerOptions } from './extract-answer.js';
export { normalizeMathAnswer, normalizeDetailed, type NormalizedAnswer } from './normalize.js';
export {
  mathEquivalentSync,
  type MathEquivalenceOptions,
  type EquivalenceResult,
  type EquivalenceStatus,
} from './equivalent.js';
export {
  MathCheckPool,
  mathEquivalent,
  defaultMathPool,
  closeDefaultMathPool,
  type MathCheckPoolOptions,
  type MathCheckOptions,
} from './pool.js';
export { mathReward, type MathRewardOptions, type MathReward } from '../math-reward.js';
