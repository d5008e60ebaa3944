import { appendFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDashboard } from 'agentrl';
import { screenshotDashboard } from '../../src/report/screenshot.js';
import { haveBrowser, launchBrowser, until } from '../helpers/browser.js';
import { scriptedRun } from '../helpers/scripted-run.js';
import { runCli } from '../../apps/cli/run-cli.js';
import { registerBuiltinCommands } from '../../apps/cli/commands.js';

/** Hazard: a dashboard that serves a page but shows no curves, no trajectory, or never updates while a run writes. */
describe.skipIf(!haveBrowser)('agentrl dashboard in a real browser (headless Chromium)', () => {
  it('loads the charts with data, opens a trajectory with its tool call, and updates live', async () => {
    const runA = await scriptedRun({ steps: 3 });
    const runB = await scriptedRun({ steps: 2 });
    const dash = await startDashboard({ runDirs: [runA, runB], port: 0, pollMs: 200 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      await page.goto(dash.url);
      // Browser-side expressions are strings: the test is compiled without DOM types.
      await until(
        page,
        "document.querySelectorAll('#charts img').length >= 8 && [...document.querySelectorAll('#charts img')].every((i) => i.complete && i.naturalWidth > 0)",
      );
      // The reward chart has a line per run.
      const svg = await page.evaluate<string>("fetch('/api/charts/reward.svg').then((r) => r.text())");
      expect((svg.match(/<path[^>]+d="M/g) ?? []).length).toBeGreaterThanOrEqual(2);
      expect(await page.textContent('#runs')).toMatch(/3 steps.*2 steps/);

      await page.waitForSelector('#list button');
      await page.click('#list button:has-text("✔")');
      await page.waitForSelector('#detail .tool-call');
      expect(await page.textContent('#detail .tool-call')).toContain('print(3 * 4)');
      expect(await page.textContent('#detail .msg.tool')).toContain('12');
      const styles = await page.evaluate<string[]>(
        "['trained', 'masked'].map((c) => getComputedStyle(document.querySelector('#detail .seg.' + c)).backgroundColor)",
      );
      expect(styles[0]).not.toBe(styles[1]); // trained and masked tokens look different

      if (process.env['AGENTRL_SCREENSHOT']) {
        await mkdir('docs/images', { recursive: true });
        await page.screenshot({ path: 'docs/images/dashboard.png', fullPage: false });
      }

      // Live: a new step written to run A reaches the page without a reload.
      const before = Number(await page.evaluate<string>("document.body.dataset.version ?? '0'"));
      await appendFile(join(runA, 'metrics.jsonl'), JSON.stringify({ step: 4, 'reward/mean': 0.9 }) + '\n');
      await until(page, `Number(document.body.dataset.version ?? '0') > ${before}`);
      await until(page, "/4 steps/.test(document.querySelector('#runs')?.textContent ?? '')");
    } finally {
      await browser.close();
      await dash.close();
    }
  });

  it('hovering a chart shows the step under the pointer and each series\u2019 value there, as in metrics.jsonl', async () => {
    const run = await scriptedRun({ steps: 3 });
    // Two more steps with values no other step has, so the readout can only be right by reading the step hovered.
    await appendFile(
      join(run, 'metrics.jsonl'),
      [
        { step: 4, 'reward/mean': 0.1234 },
        { step: 5, 'reward/mean': 0.9876 },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    const dash = await startDashboard({ runDirs: [run], port: 0, pollMs: 200 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      await page.goto(dash.url);
      await until(
        page,
        "[...document.querySelectorAll('#charts img')].length > 0 && [...document.querySelectorAll('#charts img')].every((i) => i.complete && i.naturalWidth > 0)",
      );
      const readout = await page.evaluate<{ step: number; x: number }[]>("fetch('/api/charts/reward.json').then((r) => r.json()).then((j) => j.steps)");
      expect(readout.map((s) => s.step)).toEqual([1, 2, 3, 4, 5]);
      // Each step's x is where the SVG draws its point: the root group's translation plus the point's.
      const svg = await page.evaluate<string>("fetch('/api/charts/reward.svg').then((r) => r.text())");
      const root = Number(/<g fill="none"[^>]*transform="translate\(([\d.]+),/.exec(svg)![1]);
      const drawn = [...svg.matchAll(/aria-label="[^"]*step: (\d+);[^"]*"[^>]*transform="translate\(([\d.]+),/g)].map((m) => ({
        step: Number(m[1]),
        x: root + Number(m[2]),
      }));
      expect(drawn.map((d) => d.step)).toEqual([1, 2, 3, 4, 5]);
      for (const d of drawn) expect(readout.find((s) => s.step === d.step)!.x).toBeCloseTo(d.x, 1);
      const rows = (await readFile(join(run, 'metrics.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>);
      for (const step of [4, 2, 5]) {
        // The pointer at the step's x in the SVG, scaled to the image as the page lays it out.
        const box = await page.evaluate<{ left: number; top: number; width: number; height: number; natural: number }>(
          '(() => { const i = document.querySelector(\'#charts img[data-chart="reward"]\'); const b = i.getBoundingClientRect(); return { left: b.left, top: b.top, width: b.width, height: b.height, natural: i.naturalWidth }; })()',
        );
        const x = readout.find((s) => s.step === step)!.x;
        await page.mouse.move(box.left + (x * box.width) / box.natural, box.top + box.height / 3);
        await until(page, `document.querySelector('#charts img[data-chart="reward"] + .readout')?.dataset.step === '${step}'`);
        const text = await page.evaluate<string>('document.querySelector(\'#charts img[data-chart="reward"] + .readout\').textContent');
        const want = rows.find((r) => r['step'] === step)!['reward/mean']!;
        expect(text).toBe(`step ${step}\nreward/mean: ${Number(want.toPrecision(4))}`);
        expect(await page.isVisible('#charts img[data-chart="reward"] + .readout')).toBe(true);
      }
      await page.mouse.move(5, 5); // off the chart: the readout goes away
      await until(page, 'document.querySelector(\'#charts img[data-chart="reward"] + .readout\').hidden === true');
    } finally {
      await browser.close();
      await dash.close();
    }
  });

  it('agentrl dashboard --screenshot waits for the data and writes the picture', async () => {
    const run = await scriptedRun({ steps: 3 });
    const out = join(await mkdtemp(join(tmpdir(), 'agentrl-shot-')), 'dash.png');
    registerBuiltinCommands();
    const log: string[] = [];
    const io = { stdout: (t: string) => log.push(t), stderr: (t: string) => log.push(t), signal: new AbortController().signal };
    expect(await runCli(['dashboard', run, '--screenshot', out, '--width', '900', '--height', '700'], io), log.join('')).toBe(0);
    const png = await readFile(out);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(900); // IHDR width
    expect(png.length).toBeGreaterThan(15_000); // charts drawn (a page without its charts is far smaller)
    expect(await runCli(['dashboard', run, '--screenshot', out, '--width', '10'], io)).toBe(2);
  }, 120_000);

  it('--screenshot opens a trajectory while the run keeps writing (the list re-renders under the click)', async () => {
    const run = await scriptedRun({ steps: 3 });
    const dash = await startDashboard({ runDirs: [run], port: 0, pollMs: 20 });
    const out = join(await mkdtemp(join(tmpdir(), 'agentrl-shot-')), 'live.png');
    let step = 4;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await appendFile(join(run, 'metrics.jsonl'), JSON.stringify({ step: step++, 'reward/mean': 0.5 }) + '\n');
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    try {
      await screenshotDashboard({ url: dash.url, out, width: 900, height: 700, timeoutMs: 60_000 });
      expect((await readFile(out)).subarray(1, 4).toString()).toBe('PNG');
      expect(step).toBeGreaterThan(10); // the page was updated live while the picture was taken
    } finally {
      writing = false;
      await writer;
      await dash.close();
    }
  }, 120_000);
});
