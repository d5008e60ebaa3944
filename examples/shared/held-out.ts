/**
 * The held-out evaluation the pipeline examples share (their eval.ts): the backend's current weights on the first
 * questions of the test split, `n` samples each, with the example's budgets and sampling settings and a fixed seed,
 * so evaluations before and after RL see the same questions and draws.
 */
import { join } from 'node:path';
import { evaluate, loadMathDataset, type Environment, type EvalResult, type Reward, type TrainerOptions, type TrainingBackend } from 'agentrl';

/** What an example evaluates with, besides the weights. */
export interface HeldOutTask {
  /** The test split (JSONL of `Example` rows); the first `problems` are used. */
  readonly testPath: string;
  readonly budgets: NonNullable<TrainerOptions['budgets']>;
  /** Sampling settings; the evaluation's `seed` is added. */
  readonly sampling: { readonly temperature: number; readonly topP: number };
  /** Scores every mode; closed afterwards where it has `close`. */
  readonly reward: Reward;
}

/** One way of running the questions: its environment (closed afterwards) and the file of its per-question records. */
export interface HeldOutMode {
  readonly env: Environment;
  /** File name under `outDir`, e.g. `'tool.jsonl'`. */
  readonly file: string;
}

/** Run settings of {@link evaluateHeldOut}. */
export interface HeldOutOptions {
  /** Samples per question. */
  readonly n: number;
  /** Held-out questions used. */
  readonly problems: number;
  readonly seed: number;
  /** Writes each mode's records here when given. */
  readonly outDir?: string | undefined;
}

/** Evaluates each mode in turn on the same questions with one sampler; resolves to one result per mode, in order. */
export async function evaluateHeldOut(backend: TrainingBackend, task: HeldOutTask, opts: HeldOutOptions, modes: readonly HeldOutMode[]): Promise<EvalResult[]> {
  try {
    const examples = await loadMathDataset(task.testPath, { limit: opts.problems });
    const sampler = await backend.saveWeightsForSampler();
    const renderer = await backend.renderer();
    const results: EvalResult[] = [];
    for (const mode of modes) {
      results.push(
        await evaluate({
          sampler,
          renderer,
          env: mode.env,
          reward: task.reward,
          examples,
          n: opts.n,
          budgets: task.budgets,
          sampling: { ...task.sampling, seed: opts.seed },
          ...(opts.outDir ? { outPath: join(opts.outDir, mode.file) } : {}),
        }),
      );
    }
    return results;
  } finally {
    for (const mode of modes) await mode.env.close?.();
    await (task.reward as { close?: () => Promise<void> }).close?.();
  }
}
