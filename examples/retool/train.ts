/**
 * train: ReTool RL (stage 2) on the embedded backend with the seed's settings scaled down:
 * PPO with asymmetric clipping 0.8/1.28, groups of 8, ±1 outcome reward, interpreter output masked.
 *
 *   node --import tsx examples/retool/train.ts [--checkpoint DIR] [--steps 40] [--questions 8] [--group 8] [--lr 3e-4] [--session]
 *     [--log-dir DIR] [--checkpoint-every 5] [--resume DIR|latest]   (resume: weights, Adam, step, data order)
 *     [--rollout streaming|sync] [--max-staleness 0]   (streaming groups by default; >0 overlaps rollouts with learning)
 *
 * `--session`: one interpreter session per trajectory (state persists between tool calls).
 */
import { runRlCli } from '../shared/rl-cli.js';
import { localBackend, mathReward, type TrainingBackend, type TrainSummary } from 'agentrl';
import { BUDGETS, MODEL, PATHS, SAMPLING } from './config.js';
import { toolEnv } from './env.js';
import { trainOnSplit, type RlOptions } from '../shared/rl.js';
import { flag, str } from '../shared/flags.js';

export type { RlOptions };

/** Runs RL on `backend` (already holding the SFT weights); progress bar on by default. */
export async function runRl(backend: TrainingBackend, opts: RlOptions, envOpts: { session?: boolean } = {}): Promise<TrainSummary> {
  const task = {
    env: toolEnv(4, envOpts),
    reward: mathReward(),
    trainPath: PATHS.train,
    budgets: BUDGETS,
    sampling: SAMPLING,
    contextTokens: MODEL.contextTokens,
  };
  return trainOnSplit(backend, task, { ...opts, progress: opts.progress ?? true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runRlCli({
    paths: PATHS,
    defaults: { steps: '40', lr: '3e-4' },
    flags: { session: flag(), rollout: str('streaming'), 'max-staleness': str('0') },
    makeBackend: (checkpoint) => localBackend({ ...MODEL, checkpoint }),
    run: (backend, opts, v) =>
      runRl(
        backend,
        { ...opts, rollout: v['rollout'] === 'sync' ? 'sync' : 'streaming', maxStaleness: Number(v['max-staleness']) },
        { session: v['session'] === true },
      ),
  });
}
