import * as nodeFs from 'node:fs';
import * as nodeFsp from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveBrowser, launchBrowser } from '../helpers/browser.js';
import { fsContract } from '../fixtures/browser/fs-contract.js';
// @ts-expect-error -- a plain .mjs module without types
import { browserPlatform } from '../../scripts/browser-platform.mjs';

/**
 * `indexedDbStorage` in headless Chromium: the file-seam contract gives what `node:fs` gives, and after a page reload
 * the database holds exactly what was written under `root` (nothing from outside it), a 3 MB binary byte for byte.
 */
describe.skipIf(!haveBrowser)('run storage in IndexedDB survives a page reload (headless Chromium)', () => {
  let dir = '';
  let server: Server | undefined;
  let browser: Browser | undefined;
  let url = '';

  beforeAll(async () => {
    dir = nodeFs.mkdtempSync(join(tmpdir(), 'agentrl-idb-'));
    await build({
      entryPoints: ['test/fixtures/browser/run-storage-page.ts'],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: join(dir, 'page.js'),
      plugins: [browserPlatform()],
      logLevel: 'warning',
    });
    nodeFs.writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="page.js"></script>');
    server = createServer((req, res) => {
      const name = req.url === '/' ? 'index.html' : (req.url ?? '').slice(1);
      if (!['index.html', 'page.js'].includes(name)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': name.endsWith('.js') ? 'text/javascript' : 'text/html' }).end(nodeFs.readFileSync(join(dir, name)));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
    nodeFs.rmSync(dir, { recursive: true, force: true });
  });

  it('behaves as node:fs, and a reload reads back every persisted file', async () => {
    const real = nodeFs.mkdtempSync(join(tmpdir(), 'agentrl-fs-'));
    let want: unknown[];
    try {
      want = await fsContract({ ...nodeFsp, existsSync: nodeFs.existsSync, readFileSync: nodeFs.readFileSync } as never, real);
    } finally {
      nodeFs.rmSync(real, { recursive: true, force: true });
    }
    const context = await browser!.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    const ready = () => page.waitForFunction('window.storageTest !== undefined');
    await ready();
    const wrote = await page.evaluate<{ contract: unknown[]; files: Record<string, number[]>; rootList: unknown; baseRead: boolean }>(
      'window.storageTest.write()',
    );
    expect(wrote.contract).toEqual(want);
    expect(wrote.baseRead).toBe(true);
    // `/` lists the base's folders and the persisted root.
    expect(wrote.rootList).toEqual([
      { name: 'assets', dir: true },
      { name: 'runs', dir: true },
      { name: 'scratch', dir: true },
    ]);
    expect(Object.keys(wrote.files)).toContain('/runs/a/run/logs/metrics.jsonl');

    await page.reload();
    await ready();
    const back = await page.evaluate<{ files: Record<string, number[]>; list: unknown; isDir: boolean[]; bigSum: number; bigLength: number }>(
      'window.storageTest.readBack()',
    );
    const persisted = Object.fromEntries(Object.entries(wrote.files).filter(([p]) => p.startsWith('/runs/')));
    expect(back.files).toEqual(persisted);
    expect(Object.keys(back.files).sort()).toEqual(['/runs/a/run/a.bin', '/runs/a/run/logs/metrics.jsonl', '/runs/a/run/step-00001/x.json']);
    expect(back.list).toEqual([
      { name: 'a.bin', dir: false },
      { name: 'logs', dir: true },
      { name: 'step-00001', dir: true },
    ]);
    // Folders survive too (an empty one would be listed by a run browser); a removed one and the non-persisted one do not.
    expect(back.isDir).toEqual([true, true, false, false]);
    expect(back.bigLength).toBe(3_000_000);
    expect(back.bigSum).toBe(await page.evaluate<number>('window.storageTest.bigSum()'));

    await page.reload();
    await ready();
    expect(await page.evaluate<number>('window.storageTest.afterRemove()')).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
