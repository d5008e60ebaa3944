/**
 * The command line of the pipeline examples' train.ts: RL from a checkpoint with the shared recipe, then the final
 * weights saved to `<log-dir>/final` and one summary line.
 */
import type { TrainingBackend, TrainSummary } from 'agentrl';
import { parseArgs } from './cli.js';
import { optional, rlRunFlags, rlRunOptions, str } from './flags.js';
import type { RlOptions } from './rl.js';

type Flag = { readonly type: 'string'; readonly default?: string } | { readonly type: 'boolean'; readonly default?: boolean };
type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** What one example's train.ts plugs into {@link runRlCli}. */
export interface RlCli {
  readonly paths: { readonly sftCheckpoint: string; readonly runs: string };
  /** Defaults of `--steps` and `--lr`. */
  readonly defaults: { readonly steps: string; readonly lr: string };
  /** Flags of this example beyond `--checkpoint --steps --questions --group --lr --seed --log-dir --resume --checkpoint-every`. */
  readonly flags?: Readonly<Record<string, Flag>>;
  makeBackend(checkpoint: string): TrainingBackend;
  /** Runs RL with the options from the shared flags; `values` holds every flag, this example's included. */
  run(backend: TrainingBackend, opts: RlOptions, values: FlagValues): Promise<TrainSummary>;
}

/** Parses the command line, trains, saves `<log-dir>/final` and prints `trained N steps in Ts; reward/mean per step: …`. */
export async function runRlCli(cli: RlCli): Promise<void> {
  const { values } = parseArgs({
    options: {
      checkpoint: str(cli.paths.sftCheckpoint),
      ...rlRunFlags(cli.defaults),
      seed: str('1'),
      'log-dir': str(cli.paths.runs),
      resume: optional(),
      'checkpoint-every': str('5'),
      ...cli.flags,
    },
  });
  const v = values as FlagValues;
  const logDir = v['log-dir'] as string;
  const backend = cli.makeBackend(v['checkpoint'] as string);
  const summary = await cli.run(
    backend,
    {
      ...rlRunOptions(v, logDir),
      checkpointEvery: Number(v['checkpoint-every']),
      ...(v['resume'] ? { resume: v['resume'] as string } : {}),
    },
    v,
  );
  await backend.saveState(`${logDir}/final`);
  console.log(
    `trained ${summary.steps} steps in ${summary.wallS.toFixed(0)}s; reward/mean per step: ${summary.rewardHistory.map((r) => r.toFixed(2)).join(' ')}`,
  );
  await backend.close();
}
