/**
 * Search agent RL (Search-R1 recipe, scaled down): the policy calls a `search` tool over a one-fact-per-passage
 * encyclopedia and answers inside <answer>…</answer>; reward = normalised exact match (1 / 0), retrieved passages
 * masked out of the loss, GRPO group-centred advantages, PPO with asymmetric clipping 0.8 / 1.28.
 * Starts from the shipped cold-start SFT checkpoint (backend.ts says how to use another backend).
 *
 *   node --import tsx examples/search-agent/train.ts [--checkpoint DIR] [--steps 20] [--questions 8] [--group 8] [--lr 2e-4] [--retriever URL]
 */
import { parseArgs } from '../shared/cli.js';
import { loadMathDataset, type TrainingBackend, type TrainSummary } from 'agentrl';
import { makeBackend } from './backend.js';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { makeRetriever, searchEnv, searchReward } from './env.js';
import { trainWithRecipe, type RlOptions } from '../shared/rl.js';

/** Options of {@link runRl}. */
export interface SearchRlOptions extends RlOptions {
  /** A Search-R1-compatible `/retrieve` URL instead of the embedded BM25 index. */
  readonly retrieverUrl?: string;
}

/** Runs RL on `backend` (already holding the starting weights) and returns the trainer's summary. */
export async function runRl(backend: TrainingBackend, opts: SearchRlOptions): Promise<TrainSummary> {
  const env = searchEnv(await makeRetriever(opts.retrieverUrl));
  try {
    const dataset = await loadMathDataset(PATHS.train);
    return await trainWithRecipe(backend, { env, reward: searchReward(), dataset, budgets: BUDGETS, sampling: SAMPLING, contextTokens: MODEL.contextTokens }, opts);
  } finally {
    await env.close?.();
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
      retriever: { type: 'string' },
      'log-dir': { type: 'string', default: PATHS.runs },
      resume: { type: 'string' },
      'checkpoint-every': { type: 'string', default: '5' },
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
    checkpointEvery: Number(values['checkpoint-every']),
    ...(values.resume ? { resume: values.resume } : {}),
    progress: true,
    ...(values.retriever ? { retrieverUrl: values.retriever } : {}),
  });
  await backend.saveState(`${values['log-dir']}/final`);
  console.log(`trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean per step: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`);
  await backend.close();
}
