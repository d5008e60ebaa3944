/**
 * On-policy distillation on the embedded engine (docs/algorithms.md, "On-policy distillation"): the shipped ReTool
 * SFT checkpoint is the teacher; the student is the same checkpoint weakened by a few steps of cross-entropy on random
 * tokens. The student then trains on its own samples with the teacher's per-token reverse-KL reward
 * (`distill: { teacher, coef }`, no task reward), and the held-out split shows the gap to the teacher close.
 *
 *   node --import tsx examples/distill/main.ts [--weaken 6] [--weaken-lr 1e-3] [--steps 12] [--problems 16] [--n 4] [--lr 3e-4]
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../shared/cli.js';
import { Trainer, loadMathDataset, localBackend } from 'agentrl';
import { MODEL, PATHS } from '../retool/config.js';
import { distillOptions, weaken } from './distill.js';
import { toolEnv } from '../retool/env.js';
import { EVAL_TABLE, runEval } from '../retool/eval.js';
import { str } from '../shared/flags.js';

const { values } = parseArgs({
  options: {
    weaken: str('6'),
    steps: str('12'),
    problems: str('16'),
    n: str('4'),
    lr: str('3e-4'),
    'weaken-lr': str('1e-3'),
  },
});

const evalOpts = { n: Number(values.n), problems: Number(values.problems), seed: 1234, toolOnly: true };
const teacherBackend = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
const student = localBackend({ ...MODEL, checkpoint: PATHS.sftCheckpoint });
await weaken(student, Number(values.weaken), Number(values['weaken-lr']));
const teacherEval = await runEval(teacherBackend, evalOpts);
const before = await runEval(student, evalOpts);

const env = toolEnv(4);
const trainer = new Trainer(
  distillOptions({
    student,
    teacher: await teacherBackend.saveWeightsForSampler(),
    env,
    dataset: await loadMathDataset(PATHS.train),
    steps: Number(values.steps),
    learningRate: Number(values.lr),
    logDir: await mkdtemp(join(tmpdir(), 'agentrl-distill-')),
  }),
);
const t0 = performance.now();
trainer.on('step', (e) =>
  console.log(
    `step ${e.step}: distill/reverse_kl_mean ${e.metrics['distill/reverse_kl_mean']?.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  ),
);
await trainer.train();
await env.close?.();
const after = await runEval(student, evalOpts);
console.log('\n' + EVAL_TABLE.header(evalOpts.n));
console.log(EVAL_TABLE.row('teacher (SFT)', teacherEval.tool));
console.log(EVAL_TABLE.row('student, weakened', before.tool));
console.log(EVAL_TABLE.row('student, distilled', after.tool));
const avg = (r: typeof before) => (r.tool.metrics['eval/average_at_n'] ?? 0) * 100;
console.log(
  `\nheld-out Average@${evalOpts.n} gap to the teacher: ${(avg(teacherEval) - avg(before)).toFixed(1)} pts before, ${(avg(teacherEval) - avg(after)).toFixed(1)} pts after distillation`,
);
await student.close();
await teacherBackend.close();
