import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { registerBuiltinCommands } from '../../apps/cli/commands.js';
import { runCli } from '../../apps/cli/run-cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

async function cli(...argv: string[]) {
  registerBuiltinCommands();
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), signal: new AbortController().signal });
  return { code, out, err };
}

describe('agentrl CLI', () => {
  it('--version prints the package version and exits 0', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r).toMatchObject({ code: 0, out: `agentrl ${pkg.version}\n` });
    }
  });

  it('usage errors exit 2 everywhere: no command, unknown command, unknown option, missing argument', async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli('trian')).code).toBe(2);
    for (const cmd of ['plot', 'dashboard', 'sandbox-serve']) {
      const r = await cli(cmd, '--no-such-option');
      expect(r.code, cmd).toBe(2);
      expect(r.err, cmd).toContain('Usage: agentrl');
    }
    expect((await cli('plot')).code).toBe(2);
  });
});
