import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';

/**
 * Scores one finished trajectory. Sees the model's response (`trajectory.finalText`, turns),
 * never the prompt. May be async (e.g. an equivalence check in a worker with a timeout).
 */
export type Reward<E extends Example = Example> = (trajectory: Trajectory, example: E) => RewardResult | Promise<RewardResult>;
