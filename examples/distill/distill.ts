/** The pieces of the distillation example (`main.ts`), importable so a smoke test runs them on a tiny model. */
import type { Environment, Example, Reward, SamplingClient, TrainerOptions, TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, SAMPLING } from '../retool/config.js';

/**
 * Damages the weights: `steps` Adam steps (rate `learningRate`) of cross-entropy towards random tokens — a
 * deterministic "weaker checkpoint" made from the teacher's weights.
 */
export async function weaken(backend: TrainingBackend, steps: number, learningRate = 1e-3): Promise<void> {
  let s = 12345;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const len = Math.min(64, backend.maxContextTokens - 1);
  for (let k = 0; k < steps; k++) {
    const datums = Array.from({ length: 8 }, () => {
      const toks = Array.from({ length: len + 1 }, () => 3 + Math.floor(rnd() * 250));
      return {
        modelInput: toks.slice(0, len),
        targetTokens: toks.slice(1),
        logprobs: toks.slice(1).map(() => 0),
        advantages: toks.slice(1).map(() => 0),
        mask: toks.slice(1).map(() => 1),
      };
    });
    await backend.forwardBackward(datums, { kind: 'cross_entropy' });
    await backend.optimStep({ learningRate });
  }
}

/** Distillation alone: the task reward is 0, so every advantage is the teacher's per-token reverse-KL reward. */
export const noReward: Reward = () => ({ reward: 0, correct: false, validFormat: true });

/**
 * Trainer options of on-policy distillation into `student` from `teacher` (its `computeLogprobs` scores the
 * student's own samples): `importance_sampling` on advantages `−coef·(lp_student − lp_teacher)`, no task reward.
 */
export function distillOptions(o: {
  student: TrainingBackend;
  teacher: SamplingClient;
  env: Environment;
  dataset: readonly Example[];
  steps: number;
  learningRate: number;
  groupSize?: number;
  questionsPerBatch?: number;
  logDir?: string;
}): TrainerOptions {
  return {
    backend: o.student,
    env: o.env,
    reward: noReward,
    loss: { kind: 'importance_sampling' },
    dataset: o.dataset,
    groupSize: o.groupSize ?? 4,
    questionsPerBatch: o.questionsPerBatch ?? 8,
    maxSteps: o.steps,
    budgets: BUDGETS,
    sampling: SAMPLING,
    optimizer: { learningRate: o.learningRate, beta1: 0.9, beta2: 0.99, gradClipNorm: 1 },
    microBatch: { maxTokens: 16 * MODEL.contextTokens, maxDatums: 16 },
    distill: { teacher: o.teacher, coef: 1 },
    ...(o.logDir ? { logDir: o.logDir } : {}),
    progress: false,
  };
}
