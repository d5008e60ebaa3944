/**
 * The search-agent job on the embedded CPU backend, end to end (≤ 10 minutes on 2 cores):
 * 1. loads the shipped cold-start SFT checkpoint and evaluates it on held-out questions;
 * 2. runs RL (PPO 0.8 / 1.28, groups of 8, exact-match reward, passages masked), printing reward per step;
 * 3. evaluates again with the same questions and sampling settings, and prints the before/after table.
 *
 *   npm run search-agent
 *   npm run search-agent -- --steps 5 --problems 16     (a quick look)
 * Regenerate the checkpoint with `npm run search-agent:sft`; swap the backend in backend.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../shared/cli.js';
import { makeBackend } from './backend.js';
import { PATHS } from './config.js';
import { evalHeader, formatEvalRow, runEval } from './eval.js';
import { runRl } from './train.js';

const { values } = parseArgs({
  options: {
    checkpoint: { type: 'string', default: PATHS.sftCheckpoint },
    steps: { type: 'string', default: '20' },
    questions: { type: 'string', default: '8' },
    group: { type: 'string', default: '8' },
    lr: { type: 'string', default: '2e-4' },
    n: { type: 'string', default: '4' },
    problems: { type: 'string', default: '64' },
    seed: { type: 'string', default: '1' },
    retriever: { type: 'string' },
  },
});
const n = Number(values.n);
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(0)}s`;

if (!existsSync(join(values.checkpoint!, 'config.json'))) {
  console.error(`missing SFT checkpoint at ${values.checkpoint}; regenerate it with: npm run search-agent:sft`);
  process.exit(1);
}
const runDir = join(PATHS.runs, new Date().toISOString().replace(/[:.]/g, '-'));
const retriever = values.retriever ? { retrieverUrl: values.retriever } : {};
const backend = makeBackend({ checkpoint: values.checkpoint! });
const evalOpts = { n, problems: Number(values.problems), seed: 1234, ...retriever };

console.log(`[${elapsed()}] evaluating the SFT checkpoint on ${evalOpts.problems} held-out questions × ${n} samples …`);
const before = await runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-sft') });
console.log(formatEvalRow('SFT', before));
console.log(`[${elapsed()}] RL: ${values.steps} steps × ${values.questions} questions × group ${values.group}, PPO clip [0.8, 1.28], lr ${values.lr} (log: ${runDir}/metrics.jsonl)`);
const summary = await runRl(backend, {
  steps: Number(values.steps),
  questionsPerBatch: Number(values.questions),
  groupSize: Number(values.group),
  learningRate: Number(values.lr),
  logDir: runDir,
  seed: Number(values.seed),
  ...retriever,
  onStep: (step, m) =>
    console.log(
      `[${elapsed()}] step ${String(step).padStart(3)}  reward/mean ${(m['reward/mean'] ?? 0).toFixed(3)}  searches ${(m['rollout/tool_calls'] ?? 0).toFixed(2)}  valid-call ${(m['rollout/valid_tool_call_rate'] ?? 0).toFixed(2)}`,
    ),
});
await backend.saveState(join(runDir, 'final'));
console.log(`[${elapsed()}] evaluating the RL policy …`);
const after = await runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-rl') });
await backend.close();

const h = summary.rewardHistory;
const third = Math.max(1, Math.floor(h.length / 3));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`\nreward/mean per step: ${h.map((r) => r.toFixed(2)).join(' ')}`);
console.log(`reward/mean, first third ${mean(h.slice(0, third)).toFixed(3)} → last third ${mean(h.slice(-third)).toFixed(3)}`);
console.log('\n' + evalHeader(n));
console.log(formatEvalRow('SFT', before));
console.log(formatEvalRow('SFT + RL', after));
const d = (k: string) => ((after.metrics[k] ?? 0) - (before.metrics[k] ?? 0)) * 100;
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
console.log(`\nRL vs SFT: Average@${n} ${sign(d('eval/average_at_n'))} pts, valid tool-call rate ${sign(d('eval/valid_tool_call_rate'))} pts  (${elapsed()} total)`);
