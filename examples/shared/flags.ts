/**
 * The command-line options the example scripts share, as `parseArgs` option sets (every number is a string option,
 * converted by the script), and the run settings they become. One place, so `--steps`, `--group`, `--n`… mean the
 * same and default the same in every script that takes them.
 */
import { wandbSink } from 'agentrl/wandb';
import type { RlOptions } from './rl.js';

/** A string option with a default. */
export const str = (value: string) => ({ type: 'string', default: value }) as const;
/** A string option without a default (absent: `undefined`). */
export const optional = () => ({ type: 'string' }) as const;
/** A boolean switch, off unless given. */
export const flag = () => ({ type: 'boolean', default: false }) as const;

/**
 * `--steps --questions --group --lr`: an RL run of `steps` steps, 8 questions per batch, groups of 8, learning rate
 * `lr`; `--wandb <project>` also logs it to Weights & Biases (needs `WANDB_API_KEY`; docs/report.md).
 */
export const rlRunFlags = (defaults: { readonly steps: string; readonly lr: string }) => ({
  steps: str(defaults.steps),
  questions: str('8'),
  group: str('8'),
  lr: str(defaults.lr),
  wandb: optional(),
});

/** `--n --problems`: samples per held-out question (4) and how many held-out questions are evaluated. */
export const evalSampleFlags = (problems: string) => ({ n: str('4'), problems: str(problems) });

/** `--steps --batch --lr --seed` of a cold-start SFT script: batches of 16, peak learning rate 1e-3, seed 7. */
export const sftFlags = (steps: string) => ({ steps: str(steps), batch: str('16'), lr: str('1e-3'), seed: str('7') });

/** The values of {@link rlRunFlags} and `--seed` as RL run settings logging to `logDir`. */
export function rlRunOptions(values: Readonly<Record<string, unknown>>, logDir: string): RlOptions {
  return {
    steps: Number(values['steps']),
    questionsPerBatch: Number(values['questions']),
    groupSize: Number(values['group']),
    learningRate: Number(values['lr']),
    logDir,
    seed: Number(values['seed']),
    ...(typeof values['wandb'] === 'string' ? { sinks: [wandbSink({ project: values['wandb'] })] } : {}),
  };
}
