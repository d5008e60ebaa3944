/**
 * On-policy distillation on the embedded engine (docs/algorithms.md, "On-policy distillation"): the shipped ReTool
 * SFT checkpoint is the teacher; the student is the same checkpoint weakened by a few steps of cross-entropy on random
 * tokens. The student then trains on its own samples with the teacher's per-token reverse-KL reward
 * (`distill: { teacher, coef }`, no task reward), and the held-out split shows the gap to the teacher close.
 *
 *   node --import tsx examples/distill/main.ts [--weaken 6] [--steps 12] [--problems 16] [--n 4]
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../shared/cli.js';
import { Trainer, loadMathDataset, localBackend, type Reward, type TrainingBackend } from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from '../retool/config.js';
import { toolEnv } from '../retool/env.js';
import { evalHeader, formatEvalRow, runEval } from '../retool/eval.js';

const { values } = parseArgs({
  options: {
    weaken: { type: 'string', default: '6' },
    steps: { type: 'string', default: '12' },
    problems: { type: 'string', default: '16' },
    n: { type: 'string', default: '4' },
    lr: { type: 'string', default: '3e-4' },
  },
});

/** Damages the weights: `steps` Adam steps of cross-entropy towards random tokens (a deterministic "weaker checkpoint"). */
async function weaken(backend: TrainingBackend, steps: number): Promise<void> {
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  for (let k = 0; k < steps; k++) {
    const datums = Array.from({ length: 8 }, () => {
      const toks = Array.from({ length: 65 }, () => 3 + Math.floor(rnd() * 250));
      return { modelInput: toks.slice(0, 64), targetTokens: toks.slice(1), logprobs: toks.slice(1).map(() => 0), advantages: toks.slice(1).map(() => 0), mask: toks.slice(1).map(() => 1) };
    });
    await backend.forwardBackward(datums, { kind: 'cross_entropy' });
    await backend.optimStep({ learningRate: 1e-3 });
  }
}

const evalOpts = { n: Number(values.n), problems: Number(values.problems), seed: 1234, toolOnly: true };
const teacherBackend = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
const student = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
await weaken(student, Number(values.weaken));
const teacherEval = await runEval(teacherBackend, evalOpts);
const before = await runEval(student, evalOpts);

// Distillation alone: the task reward is 0, so every advantage is the teacher's reverse-KL reward.
const noReward: Reward = () => ({ reward: 0, correct: false, validFormat: true });
const env = toolEnv(4);
const trainer = new Trainer({
  backend: student,
  env,
  reward: noReward,
  loss: { kind: 'importance_sampling' },
  dataset: await loadMathDataset(PATHS.train),
  groupSize: 4,
  questionsPerBatch: 8,
  maxSteps: Number(values.steps),
  budgets: BUDGETS,
  sampling: SAMPLING,
  optimizer: { learningRate: Number(values.lr), beta1: 0.9, beta2: 0.99, gradClipNorm: 1 },
  microBatch: { maxTokens: 16 * MODEL.contextTokens, maxDatums: 16 },
  distill: { teacher: await teacherBackend.saveWeightsForSampler(), coef: 1 },
  logDir: await mkdtemp(join(tmpdir(), 'agentrl-distill-')),
  progress: false,
});
const t0 = performance.now();
trainer.on('step', (e) => console.log(`step ${e.step}: distill/reverse_kl_mean ${e.metrics['distill/reverse_kl_mean']?.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`));
await trainer.train();
await env.close?.();
const after = await runEval(student, evalOpts);
console.log('\n' + evalHeader(evalOpts.n));
console.log(formatEvalRow('teacher (SFT)', teacherEval.tool));
console.log(formatEvalRow('student, weakened', before.tool));
console.log(formatEvalRow('student, distilled', after.tool));
const avg = (r: typeof before) => (r.tool.metrics['eval/average_at_n'] ?? 0) * 100;
console.log(`\nheld-out Average@${evalOpts.n} gap to the teacher: ${(avg(teacherEval) - avg(before)).toFixed(1)} pts before, ${(avg(teacherEval) - avg(after)).toFixed(1)} pts after distillation`);
await student.close();
await teacherBackend.close();
