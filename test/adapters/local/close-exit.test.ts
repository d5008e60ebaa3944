import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../fixtures/sandbox-close-script.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Hazard: idle zygotes are unref'd so they never keep a trainer alive; if `close()` then waits on their exit
 * without holding the event loop, a script's `await sandbox.close()` never settles and Node exits with code 13.
 */
describe('local sandbox close() in a script', () => {
  it('settles a top-level await and lets the process exit 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: root, timeout: 60_000 });
    expect(stdout).toContain('closed');
  });
});
