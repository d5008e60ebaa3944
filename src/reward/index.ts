export type { Reward } from './types.js';
