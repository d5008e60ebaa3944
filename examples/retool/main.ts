/**
 * The main job: ReTool on the embedded CPU backend, end to end.
 * 1. prepares the data (generated DAPO-style arithmetic word problems) if missing;
 * 2. loads the shipped cold-start SFT checkpoint and evaluates it (tool mode and text-only mode);
 * 3. runs RL (PPO 0.8/1.28, group 8, ±1 outcome reward, interpreter output masked);
 * 4. evaluates again on the same held-out problems with the same sampling settings, and prints both.
 *
 *   npm run retool            (≈ 5 minutes on 2 cores)
 *   npm run retool -- --steps 5 --problems 16     (a quick look)
 *   npm run retool -- --session                   (one interpreter session per trajectory: state persists between tool calls)
 *   npm run retool -- --rollout sync               (round-synchronous rollouts; streaming groups are the default)
 *   npm run retool -- --algorithms                 (kl + rolloutCorrection + dynamicSampling + overlong + cosine schedule; docs/algorithms.md)
 *   npm run retool -- --wandb retool              (also log the run to Weights & Biases project `retool`; WANDB_API_KEY set)
 *   npm run retool -- --backend http://127.0.0.1:8000   (train through a Tinker-API server, e.g.
 *                      `npm run serve -- --checkpoint examples/retool/checkpoints/sft` in another terminal)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../shared/cli.js';
import { evalSampleFlags, flag, optional, rlRunFlags, rlRunOptions, str } from '../shared/flags.js';
import { headlineDelta, newRunDir, requireCheckpoint, stopwatch } from '../shared/job.js';
import { loadMathDataset, plotRuns } from 'agentrl';
import { MODEL, PATHS } from './config.js';
import { prepareData } from './prepare-data.js';
import { EVAL_TABLE, runEval } from './eval.js';
import { runRl } from './train.js';
import { exampleBackend } from '../shared/rl.js';

const { values } = parseArgs({
  options: {
    ...rlRunFlags({ steps: '40', lr: '3e-4' }),
    ...evalSampleFlags('32'),
    seed: str('1'),
    'eval-every': str('10'),
    session: flag(),
    rollout: str('streaming'),
    'max-staleness': str('0'),
    /** Tinker-API server URL (agentrl serve, SkyRL, Tinker); default: the embedded engine in-process. */
    backend: optional(),
    'base-model': optional(),
    /** The stabilisers of real runs: KL to the SFT weights, token TIS, DAPO dynamic sampling and overlong shaping, cosine LR. */
    algorithms: flag(),
  },
});
const n = Number(values.n);
const elapsed = stopwatch();

if (!existsSync(PATHS.train)) {
  const r = await prepareData({ out: PATHS.data, dev: 64, count: 4000, seed: 1 });
  console.log(`data: generated ${r.train} train / ${r.dev} dev problems`);
}
requireCheckpoint(PATHS.sftCheckpoint, 'retool:sft');
const runDir = newRunDir(PATHS.runs);
const backend = exampleBackend({
  local: { ...MODEL, checkpoint: PATHS.sftCheckpoint },
  contextTokens: MODEL.contextTokens,
  remote: values.backend,
  baseModel: values['base-model'],
});
if (values.backend !== undefined)
  console.log(`backend: tinkerBackend → ${values.backend} (the server's model; start it with --checkpoint ${PATHS.sftCheckpoint})`);
const evalOpts = { n, problems: Number(values.problems), seed: 1234, session: values.session! };

console.log(`[${elapsed()}] evaluating the SFT checkpoint on ${evalOpts.problems} held-out problems × ${n} samples …`);
const before = await runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-sft') });
console.log(
  `[${elapsed()}] RL: ${values.steps} steps × ${values.questions} questions × group ${values.group}, PPO clip [0.8, 1.28] (log: ${runDir}/metrics.jsonl)`,
);
await runRl(
  backend,
  {
    ...rlRunOptions(values, runDir),
    rollout: values.rollout === 'sync' ? 'sync' : 'streaming',
    maxStaleness: Number(values['max-staleness']),
    ...(values.algorithms
      ? {
          algorithms: {
            kl: { coef: 0.02, reference: 'base', estimator: 'k3', placement: 'advantage' },
            rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 },
            dynamicSampling: { maxAttempts: 3 },
            overlong: { bufferTokens: 48, penalty: 0.5 },
            schedule: { kind: 'cosine', warmupSteps: 2 },
          },
        }
      : {}),
    // A held-out curve during training: 16 dev problems × 2 samples every `--eval-every` steps (0: off).
    ...(Number(values['eval-every']) > 0
      ? { eval: { dataset: await loadMathDataset(PATHS.dev, { limit: 16 }), every: Number(values['eval-every']), samples: 2 } }
      : {}),
  },
  { session: values.session! },
);
await backend.saveState(join(runDir, 'final'));
console.log(`[${elapsed()}] evaluating the RL policy …`);
const after = await runEval(backend, { ...evalOpts, outDir: join(runDir, 'eval-rl') });
await backend.close();

console.log('\n' + EVAL_TABLE.header(n));
console.log(EVAL_TABLE.row('SFT, text-only', before.text!));
console.log(EVAL_TABLE.row('SFT, tool mode', before.tool));
console.log(EVAL_TABLE.row('SFT+RL, text-only', after.text!));
console.log(EVAL_TABLE.row('SFT+RL, tool mode', after.tool));
const plots = await plotRuns([runDir]);
for (const c of plots.evalCurves) console.log('\n' + c.lines.join('\n'));
console.log(`\ncharts: ${plots.outDir}\nreport: ${plots.report}\nlive view: npm run agentrl -- dashboard ${runDir}`);
console.log(`\ntool mode, RL vs SFT: ${headlineDelta(before.tool, after.tool, n)}  (${elapsed()} total)`);
