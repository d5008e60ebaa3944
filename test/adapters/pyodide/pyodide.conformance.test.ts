import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe } from 'vitest';
import { sandboxConformance } from 'agentrl/testing/conformance';
import type { ExecResult, RunRequest, Sandbox } from '../../../src/types/exec-result.js';
import { haveBrowser, launchBrowser } from '../../helpers/browser.js';
// @ts-expect-error -- a plain .mjs module without types
import { serveDemo } from '../../../examples/browser/serve.mjs';

const run = promisify(execFile);
let browser: Browser | undefined;
let server: { url: string; close(): Promise<void> } | undefined;

/**
 * The shared suite against pyodideSandbox running in headless Chromium: each call goes from this Node test into the
 * page (DevTools protocol) and runs in the page's Pyodide workers, under the demo server's CSP.
 */
async function pageSandbox(): Promise<Sandbox> {
  await run(process.execPath, ['examples/browser/build.mjs']);
  await build({
    entryPoints: ['test/fixtures/browser/pyodide-harness.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: 'examples/browser/dist/test-harness.js',
    logLevel: 'warning',
  });
  writeFileSync('examples/browser/dist/test-harness.html', '<!doctype html><meta charset="utf-8"><script type="module" src="./test-harness.js"></script>');
  server = (await serveDemo(0)) as { url: string; close(): Promise<void> };
  browser = await launchBrowser();
  const page: Page = await browser.newPage();
  await page.goto(`${server.url}test-harness.html`);
  await page.waitForFunction('window.sandbox !== undefined');
  return {
    name: 'pyodide',
    run: (req: RunRequest) => page.evaluate<ExecResult, RunRequest>((r) => (globalThis as unknown as { sandbox: Sandbox }).sandbox.run(r), { ...req }),
    close: () => page.evaluate<void>(() => (globalThis as unknown as { sandbox: Sandbox }).sandbox.close()),
  };
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const NO_PROCESSES = 'no processes in WebAssembly: os.fork raises OSError, so the snippet fails before its check';
describe.skipIf(!haveBrowser)('pyodide in headless Chromium', () => {
  sandboxConformance('pyodide', pageSandbox, {
    timeScale: 3,
    skip: {
      zombies: NO_PROCESSES,
      'daemon-escape': NO_PROCESSES,
      'memory-bomb': "no memory status: a page cannot bound one worker's memory; a wasm heap that cannot grow is a MemoryError (`error`)",
      'numpy-under-memory-limit': 'standard library only: numpy is not loaded (the worker has no network once Pyodide has started)',
    },
  });
});
