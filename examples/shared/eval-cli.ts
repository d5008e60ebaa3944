/**
 * The command line of the pipeline examples' eval.ts: evaluate a checkpoint on the held-out questions and print the
 * table (`--checkpoint --n --problems --seed --out`, plus the example's own flags).
 */
import { join } from 'node:path';
import type { EvalResult, EvalTable, TrainingBackend } from 'agentrl';
import { parseArgs } from './cli.js';
import type { HeldOutOptions } from './held-out.js';
import { evalSampleFlags, str } from './flags.js';

type Flag = { readonly type: 'string'; readonly default?: string } | { readonly type: 'boolean'; readonly default?: boolean };
type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** What one example's eval.ts plugs into {@link runEvalCli}. */
export interface EvalCli {
  readonly paths: { readonly sftCheckpoint: string; readonly runs: string };
  readonly flags?: Readonly<Record<string, Flag>>;
  makeBackend(checkpoint: string): TrainingBackend;
  /** Evaluates; resolves to the table's rows, label first. */
  run(backend: TrainingBackend, opts: HeldOutOptions & { readonly outDir: string }, values: FlagValues): Promise<readonly (readonly [string, EvalResult])[]>;
  /** The table the rows are printed in. */
  readonly table: EvalTable;
}

/** Parses the command line, evaluates, prints the header and one row per result, closes the backend. */
export async function runEvalCli(cli: EvalCli): Promise<void> {
  const { values } = parseArgs({
    options: {
      checkpoint: str(cli.paths.sftCheckpoint),
      ...evalSampleFlags('64'),
      seed: str('1234'),
      out: str(join(cli.paths.runs, 'eval')),
      ...cli.flags,
    },
  });
  const v = values as FlagValues;
  const backend = cli.makeBackend(v['checkpoint'] as string);
  const rows = await cli.run(backend, { n: Number(v['n']), problems: Number(v['problems']), seed: Number(v['seed']), outDir: v['out'] as string }, v);
  console.log(cli.table.header(Number(v['n'])));
  for (const [label, r] of rows) console.log(cli.table.row(label, r));
  await backend.close();
}
