import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (scripts/install-system-deps.sh), or CHROMIUM_PATH. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
// CI installs it; elsewhere browser tests are skipped without it.
export const haveBrowser = existsSync(CHROMIUM) || process.env['CI'] === 'true';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
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
}

/**
 * Polls a browser-side expression (a string: the tests are compiled without DOM types) until it is truthy.
 * Polled from Node through the DevTools protocol, because the page's CSP forbids the eval that
 * `page.waitForFunction` uses inside the page.
 */
export async function until(page: Page, expression: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate<unknown>(expression).catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
