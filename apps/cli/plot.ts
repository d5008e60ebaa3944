import { parseArgs } from 'node:util';
import { plotRuns } from 'agentrl/internal';
import { UsageError } from 'agentrl/internal';
import { parseNumberFlag } from 'agentrl/internal';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl plot RUN_DIR [RUN_DIR …] [--out DIR] [--trajectories N]

Writes PNG and SVG charts (reward, correct, format, valid tool-call rate, tool calls and turns, loss,
clip fraction, KL, time per step — raw and smoothed — and eval curves when present) and report.html
for one or more Trainer log directories (several runs are overlaid, one colour each).

Options:
  --out <dir>            where to write (default RUN_DIR/plots of the first run)
  --trajectories <n>     sample trajectories shown in report.html (default 6)`;

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { out: { type: 'string' }, trajectories: { type: 'string' } } });
  } catch (e) {
    io.stderr(`agentrl plot: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  let n: number | undefined;
  try {
    if (positionals.length === 0) throw new UsageError('give a run directory');
    n = parseNumberFlag('trajectories', values.trajectories, { integer: true, min: 0, expects: 'a whole number' });
  } catch (e) {
    io.stderr(`agentrl plot: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const r = await plotRuns(positionals, { ...(values.out ? { outDir: values.out } : {}), ...(n === undefined ? {} : { trajectories: n }) });
    for (const c of r.evalCurves) io.stdout(`${r.evalCurves.length > 1 ? `${c.run}: ` : ''}${c.lines.join('\n')}\n`);
    for (const w of r.warnings) io.stderr(`agentrl plot: warning: ${w}\n`);
    io.stdout(`agentrl plot: ${r.charts.length} charts (SVG + PNG) in ${r.outDir}\nreport: ${r.report}\n`);
    return 0;
  } catch (e) {
    io.stderr(`agentrl plot: ${(e as Error).message}\n`);
    return 1;
  }
}

/** `agentrl plot`: charts and an HTML report of run directories. */
export const plotCommand: CliCommand = { name: 'plot', summary: 'write PNG/SVG charts and an HTML report of run directories', usage: USAGE, run };
