/**
 * The command line of the pipeline examples' eval.ts: evaluate a checkpoint on the held-out questions and print the
 * table (`--checkpoint --n --problems --seed --out`, plus the example's own flags).
 */
import { join } from 'node:path';
import type { EvalResult, TrainingBackend } from 'agentrl';
import { parseArgs } from './cli.js';

type Flag = { readonly type: 'string'; readonly default?: string } | { readonly type: 'boolean'; readonly default?: boolean };
type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** What one example's eval.ts plugs into {@link runEvalCli}. */
export interface EvalCli {
  readonly paths: { readonly sftCheckpoint: string; readonly runs: string };
  readonly flags?: Readonly<Record<string, Flag>>;
  makeBackend(checkpoint: string): TrainingBackend;
  /** Evaluates; resolves to the table's rows, label first. */
  run(backend: TrainingBackend, opts: { readonly n: number; readonly problems: number; readonly seed: number; readonly outDir: string }, values: FlagValues): Promise<readonly (readonly [string, EvalResult])[]>;
  evalHeader(n: number): string;
  formatEvalRow(label: string, r: EvalResult): string;
}

/** Parses the command line, evaluates, prints the header and one row per result, closes the backend. */
export async function runEvalCli(cli: EvalCli): Promise<void> {
  const { values } = parseArgs({
    options: {
      checkpoint: { type: 'string', default: cli.paths.sftCheckpoint },
      n: { type: 'string', default: '4' },
      problems: { type: 'string', default: '64' },
      seed: { type: 'string', default: '1234' },
      out: { type: 'string', default: join(cli.paths.runs, 'eval') },
      ...cli.flags,
    },
  });
  const v = values as FlagValues;
  const backend = cli.makeBackend(v['checkpoint'] as string);
  const rows = await cli.run(backend, { n: Number(v['n']), problems: Number(v['problems']), seed: Number(v['seed']), outDir: v['out'] as string }, v);
  console.log(cli.evalHeader(Number(v['n'])));
  for (const [label, r] of rows) console.log(cli.formatEvalRow(label, r));
  await backend.close();
}
