/**
 * The one place the sql-agent scripts get their `TrainingBackend` from.
 * Default: the embedded CPU engine (`localBackend`), fresh or from a checkpoint written by `saveState`.
 * To train a real model, return another backend here (anything implementing `TrainingBackend`, e.g. a Tinker-API
 * client for a Qwen model) and skip the shipped SFT checkpoint; the env, reward, demos and loop do not change.
 * Then raise `MODEL.contextTokens`/`BUDGETS` in config.ts to what that model affords, and show the schema (the default `formatQuestion` of `sqlAgent`).
 */
import { localBackend, type TrainingBackend } from 'agentrl';
import { MODEL } from './config.js';

/** Options of {@link makeBackend}. */
export interface BackendChoice {
  /** Directory written by `saveState` to start from; omitted = fresh weights. */
  readonly checkpoint?: string;
  /** Init/sampling seed of a fresh model. */
  readonly seed?: number;
}

/** Returns the training backend for this example (embedded engine by default; see the module comment to swap it). */
export function makeBackend(choice: BackendChoice = {}): TrainingBackend {
  return choice.checkpoint !== undefined ? localBackend({ checkpoint: choice.checkpoint }) : localBackend({ ...MODEL, seed: choice.seed ?? 0 });
}
