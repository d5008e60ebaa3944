import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** Runs scripts/check-browser-bundle.mjs; resolves with its exit code, report and stderr. */
async function check(
  entry?: string,
): Promise<{ code: number; report?: { bytes: number; gzipBytes: number; nodeImports: { path: string; importer: string }[] }; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-browser-bundle.mjs', '--json', ...(entry ? ['--entry', entry] : [])]);
    return { code: 0, report: JSON.parse(stdout), stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, ...(err.stdout ? { report: JSON.parse(err.stdout) } : {}), stderr: err.stderr };
  }
}

describe('agentrl/browser bundles for a browser with no Node built-in', () => {
  it('bundles src/browser/index.ts for platform browser with no Node import or global', async () => {
    const r = await check();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.report!.nodeImports).toEqual([]);
    expect(r.report!.bytes).toBeGreaterThan(100_000); // the Trainer, the engine and the renderer are really in it
  });

  // Guards the check itself: a Node import anywhere in the graph must fail it, naming the module and its importer.
  it('fails on a node: import and names the importer', async () => {
    const r = await check('test/fixtures/browser/node-import.ts');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('node:fs');
    expect(r.stderr).toContain('test/fixtures/browser/node-import.ts');
  });

  it('fails on a bare Node global (Buffer) with no import', async () => {
    const r = await check('test/fixtures/browser/node-global.ts');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('global Buffer');
  });

  it('takes the .browser.ts version of a platform module', async () => {
    const r = await check('test/fixtures/browser/via-platform.ts');
    expect(r.code).toBe(0);
    expect(r.report!.nodeImports).toEqual([]);
  });
});
