import { describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;

describe('example scripts exit 2 on a usage error', () => {
  for (const script of ['examples/retool/main.ts', 'examples/custom-env/tea-price.ts', 'examples/custom-env/tea-compare.ts']) {
    it(script, () => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', script, '--no-such-option'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("Unknown option '--no-such-option'");
    }, 130_000);
  }

  it('tea-compare: a value that is not a whole number, or no held-out days', async () => {
    // Asynchronous, so the worker keeps answering vitest while the scripts start.
    const run = promisify(execFile);
    for (const args of [
      ['--sft-steps', 'ten'],
      ['--eval-days', '0'],
    ]) {
      const r = await run(process.execPath, ['--import', 'tsx', 'examples/custom-env/tea-compare.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--${args[0]!.slice(2)} expects a whole number`);
    }
  }, 260_000);
});
