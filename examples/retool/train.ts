/**
 * train: ReTool RL (stage 2) on the embedded backend with the seed's settings scaled down:
 * PPO with asymmetric clipping 0.8/1.28, groups of 8, ±1 outcome reward, interpreter output masked.
 *
 *   node --import tsx examples/retool/train.ts [--checkpoint DIR] [--steps 40] [--questions 8] [--group 8] [--lr 3e-4]
 */
import { parseArgs } from 'node:util';
import { Trainer, loadMathDataset, localBackend, mathReward, type TrainingBackend, type TrainSummary } from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { toolEnv } from './env.js';

export interface RlOptions {
  readonly steps: number;
  readonly questionsPerBatch: number;
  readonly groupSize: number;
  readonly learningRate: number;
  readonly logDir: string;
  readonly seed: number;
  readonly progress?: boolean;
}

/** Runs RL on `backend` (already holding the SFT weights). */
export async function runRl(backend: TrainingBackend, opts: RlOptions): Promise<TrainSummary> {
  const env = toolEnv();
  const reward = mathReward();
  const trainer = new Trainer({
    backend,
    env,
    reward,
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    dataset: await loadMathDataset(PATHS.train),
    groupSize: opts.groupSize,
    questionsPerBatch: opts.questionsPerBatch,
    maxSteps: opts.steps,
    budgets: BUDGETS,
    sampling: SAMPLING,
    optimizer: { learningRate: opts.learningRate, beta1: 0.9, beta2: 0.99, gradClipNorm: 1 },
    microBatch: { maxTokens: 16 * MODEL.contextTokens, maxDatums: 16 },
    logDir: opts.logDir,
    seed: opts.seed,
    progress: opts.progress ?? true,
  });
  trainer.on('warning', (w) => console.warn(`warning [${w.code}] ${w.message}`));
  process.once('SIGINT', () => trainer.stop());
  try {
    return await trainer.train();
  } finally {
    await env.close?.();
    await reward.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      checkpoint: { type: 'string', default: PATHS.sftCheckpoint },
      steps: { type: 'string', default: '40' },
      questions: { type: 'string', default: '8' },
      group: { type: 'string', default: '8' },
      lr: { type: 'string', default: '3e-4' },
      seed: { type: 'string', default: '1' },
      'log-dir': { type: 'string', default: PATHS.runs },
    },
  });
  const backend = localBackend({ ...MODEL, checkpoint: values.checkpoint! });
  const summary = await runRl(backend, {
    steps: Number(values.steps),
    questionsPerBatch: Number(values.questions),
    groupSize: Number(values.group),
    learningRate: Number(values.lr),
    logDir: values['log-dir']!,
    seed: Number(values.seed),
  });
  await backend.saveState(`${values['log-dir']}/final`);
  console.log(`trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean per step: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`);
  await backend.close();
}
