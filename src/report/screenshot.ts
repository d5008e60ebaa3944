import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { importOptionalPeer } from '../util/optional-peer.js';

/** What `npm install` line the error names: the range agentrl declares for its optional peer. */
const PLAYWRIGHT_INSTALL = 'npm install --save-dev playwright-core@^1.65.0';
const SCREENSHOT = 'agentrl dashboard --screenshot (headless Chromium; Debian: apt-get install chromium)';

/** Options of {@link screenshotDashboard}. */
export interface ScreenshotOptions {
  /** The dashboard's URL (a `?key=` URL when it has an API key). */
  readonly url: string;
  /** Where the PNG goes. */
  readonly out: string;
  /** Viewport, CSS pixels. @default 1400 × 1300 */
  readonly width?: number;
  readonly height?: number;
  /** Also open the first correct trajectory (else the first) in the viewer. @default true */
  readonly openTrajectory?: boolean;
  /** Chromium binary. @default `CHROMIUM_PATH`, else `/usr/bin/chromium` when present, else playwright's own */
  readonly executablePath?: string;
  /** Give up after this long, ms. @default 60000 */
  readonly timeoutMs?: number;
}

/**
 * Takes a picture of a running dashboard with headless Chromium (driven by playwright-core, an optional peer
 * dependency): loads the page, waits until its data arrived and every chart image decoded (the page sets
 * `data-ready` — a plain headless screenshot would catch the page before its data, and a virtual-time budget never
 * ends on the live stream), opens a trajectory, and writes the PNG.
 * @throws MissingPeerDependencyError when playwright-core is not installed (it is an optional peer).
 * @throws Error when no Chromium is found, or the page has no data within `timeoutMs`.
 */
export async function screenshotDashboard(opts: ScreenshotOptions): Promise<void> {
  const { chromium } = await importOptionalPeer('playwright-core', SCREENSHOT, PLAYWRIGHT_INSTALL, () => import('playwright-core'));
  const envPath = process.env['CHROMIUM_PATH'];
  const executablePath = opts.executablePath ?? envPath ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  const timeout = opts.timeoutMs ?? 60_000;
  const browser = await chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: opts.width ?? 1400, height: opts.height ?? 1300 } });
    await page.goto(opts.url, { timeout });
    const deadline = Date.now() + timeout;
    /** Polls `expr` in the page until it is truthy (true) or `ms` passed (false). */
    const waitFor = async (expr: string, ms: number): Promise<boolean> => {
      const end = Math.min(deadline, Date.now() + ms);
      while (!(await page.evaluate<unknown>(expr).catch(() => false))) {
        if (Date.now() > end) return false;
        await new Promise((r) => setTimeout(r, 100));
      }
      return true;
    };
    const noData = () => new Error(`the dashboard at ${new URL(opts.url).origin} showed no data within ${timeout} ms`);
    if (!(await waitFor("document.body.dataset.ready === '1' && [...document.querySelectorAll('#charts img')].every((i) => i.complete)", timeout)))
      throw noData();
    if (opts.openTrajectory ?? true) {
      // Found and clicked in one page task: a live update may re-render the list at any moment, so a handle taken in one
      // round trip can be detached by the next. A click a re-render swallowed is simply made again.
      const click = `(() => {
        const b = document.querySelector('#list button[data-correct="1"]') ?? document.querySelector('#list button');
        if (!b) return 'none';
        b.click();
        return 'clicked';
      })()`;
      const opened = "document.querySelector('#detail .trajectory') !== null";
      while (!(await waitFor(opened, 0))) {
        const clicked = await page.evaluate<string>(click).catch(() => 'lost');
        if (clicked === 'none') break; // a run with no trajectories: the picture shows the charts alone
        if (clicked === 'clicked' && (await waitFor(opened, 3_000))) break;
        if (Date.now() > deadline) throw noData();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await page.evaluate('window.scrollTo(0, 0)');
    await writeFile(opts.out, await page.screenshot({ fullPage: false, type: 'png' }));
  } finally {
    await browser.close();
  }
}
