/**
 * Screenshot of `agentrl dashboard` for the docs: serves the given run folders, opens the page in Debian's headless
 * Chromium (playwright-core), opens the first trajectory with a tool call, and writes a PNG.
 *   node --import tsx scripts/dashboard-screenshot.ts OUT.png RUN_DIR [RUN_DIR …]
 */
import { chromium } from 'playwright-core';
import { startDashboard } from '../src/index.js';

const [out, ...runDirs] = process.argv.slice(2);
if (!out || runDirs.length === 0) {
  console.error('usage: node --import tsx scripts/dashboard-screenshot.ts OUT.png RUN_DIR [RUN_DIR …]');
  process.exit(2);
}
const dash = await startDashboard({ runDirs, port: 0 });
const browser = await chromium.launch({
  executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1500 } });
  await page.goto(dash.url);
  await page.waitForFunction(
    "[...document.querySelectorAll('#charts img')].length > 0 && [...document.querySelectorAll('#charts img')].every((i) => i.complete && i.naturalWidth > 0)",
  );
  await page.waitForSelector('#list button');
  const withTool = page.locator('#list button', { hasText: /[1-9] tool call/ }).first();
  await ((await withTool.count()) > 0 ? withTool : page.locator('#list button').first()).click();
  await page.waitForSelector('#detail .trajectory');
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await dash.close();
}
