import { appendFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { registerBuiltinCommands } from '../../src/cli/commands.js';
import { scriptedRun } from '../helpers/scripted-run.js';

it('shot', async () => {
  await rm('/tmp/shots/runs', { recursive: true, force: true });
  const a = join('/tmp/shots/runs', '2026-12-01T18-20-09-032Z'); const b = join('/tmp/shots/runs', '2026-12-01T19-02-44-118Z');
  await mkdir(a, { recursive: true }); await mkdir(b, { recursive: true });
  await scriptedRun({ steps: 8, logDir: a }); await scriptedRun({ steps: 6, logDir: b });
  for (const [d, base] of [[a, 0.3], [b, 0.35]] as const) for (let s = 0; s <= 8; s += 2) await appendFile(join(d, 'metrics.jsonl'), JSON.stringify({ step: s, 'eval/average_at_n': base + s * 0.03, 'eval/pass_at_n': base + 0.2 + s * 0.02, 'eval/format_rate': 0.9, 'optim/kl_sample_train': -0.0000085 + s * 1e-6 }) + '\n');
  registerBuiltinCommands();
  const out: string[] = [];
  const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), signal: new AbortController().signal };
  await runCli(['dashboard', a, b, '--screenshot', '/tmp/shots/dash.png'], io);
  await runCli(['plot', a, b, '--out', '/tmp/shots/plots'], io);
  console.log(out.join(''));
}, 300_000);
