/**
 * SQL agent RL (SkyRL-SQL recipe, scaled down): the policy may run one read-only query with `execute_sql`, then
 * answers with a final ```sql block; reward = execution match against the gold SQL (1 / 0), query results masked
 * out of the loss, GRPO group-centred advantages, PPO with asymmetric clipping 0.8 / 1.28.
 * Starts from the shipped cold-start SFT checkpoint (backend.ts says how to use another backend).
 *
 *   node --import tsx examples/sql-agent/train.ts [--checkpoint DIR] [--steps 20] [--questions 8] [--group 8] [--lr 2e-4]
 */
import { parseArgs } from 'node:util';
import { Trainer, loadMathDataset, type TrainingBackend, type TrainSummary } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { loadDatabase, sqlEnv, sqlReward } from './env.js';

/** Options of {@link runRl}. */
export interface RlOptions {
  readonly steps: number;
  readonly questionsPerBatch: number;
  readonly groupSize: number;
  readonly learningRate: number;
  readonly logDir: string;
  readonly seed: number;
  readonly progress?: boolean;
  /** Called after each step with its number and metrics (`reward/mean`, `rollout/tool_calls`, …). */
  readonly onStep?: (step: number, metrics: Readonly<Record<string, number>>) => void;
}

/** Runs RL on `backend` (already holding the starting weights) and returns the trainer's summary. */
export async function runRl(backend: TrainingBackend, opts: RlOptions): Promise<TrainSummary> {
  const database = loadDatabase();
  const env = sqlEnv(database);
  const reward = sqlReward(database);
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
    progress: opts.progress ?? false,
  });
  trainer.on('warning', (w) => console.warn(`warning [${w.code}] ${w.message}`));
  if (opts.onStep) trainer.on('step', (m) => opts.onStep!(m.step, m.metrics));
  const stop = () => trainer.stop();
  process.once('SIGINT', stop);
  try {
    return await trainer.train();
  } finally {
    process.off('SIGINT', stop);
    await env.close?.();
    await reward.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      checkpoint: { type: 'string', default: PATHS.sftCheckpoint },
      steps: { type: 'string', default: '20' },
      questions: { type: 'string', default: '8' },
      group: { type: 'string', default: '8' },
      lr: { type: 'string', default: '2e-4' },
      seed: { type: 'string', default: '1' },
      'log-dir': { type: 'string', default: PATHS.runs },
    },
  });
  const backend = makeBackend({ checkpoint: values.checkpoint! });
  const summary = await runRl(backend, {
    steps: Number(values.steps),
    questionsPerBatch: Number(values.questions),
    groupSize: Number(values.group),
    learningRate: Number(values.lr),
    logDir: values['log-dir']!,
    seed: Number(values.seed),
    progress: true,
  });
  await backend.saveState(`${values['log-dir']}/final`);
  console.log(`trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean per step: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`);
  await backend.close();
}
