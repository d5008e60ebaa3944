/**
 * The demo's RL recipe, shared by the page's training worker and the Node side of `bench/browser-step.bench.ts` so the
 * two time the same step: the ReTool example's settings (examples/shared/config.ts, examples/retool/config.ts) with
 * 4 questions × group 8 per step.
 */
import type { Environment, Example, TrainerOptions, TrainingBackend } from 'agentrl/browser';

export const MODEL = { layers: 2, dModel: 128, heads: 4, contextTokens: 192 } as const;
export const BUDGETS = { maxToolCalls: 3, maxTurns: 4, maxTrajectoryTokens: 192, maxTurnTokens: 64, maxToolResponseTokens: 16 } as const;
/** Per-call interpreter time limit, ms. */
export const TOOL_TIMEOUT_MS = 5_000;

/** One JSONL row of examples/retool/data/*.jsonl as an Example. */
export function exampleOfRow(line: string): Example {
  const r = JSON.parse(line) as { id: string; question: string; answer: string };
  return { id: r.id, question: r.question, answer: r.answer };
}

/** Trainer options of the demo (the reward is passed in: `exactMatch({ correct: 1, wrong: -1 })` on both sides). */
export function demoTrainerOptions(o: {
  backend: TrainingBackend;
  env: Environment;
  reward: TrainerOptions['reward'];
  dataset: readonly Example[];
  heldOut: readonly Example[];
  steps: number;
  evalEvery: number;
}): TrainerOptions {
  return {
    backend: o.backend,
    env: o.env,
    reward: o.reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: o.dataset,
    groupSize: 8,
    questionsPerBatch: 4,
    maxSteps: o.steps,
    budgets: BUDGETS,
    sampling: { temperature: 1, topP: 1 },
    optimizer: { learningRate: 3e-4, beta1: 0.9, beta2: 0.99, gradClipNorm: 1 },
    microBatch: { maxTokens: 16 * MODEL.contextTokens, maxDatums: 16 },
    seed: 1,
    ...(o.evalEvery > 0 ? { eval: { dataset: o.heldOut, every: o.evalEvery, samples: 2 } } : {}),
  };
}
