import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { plotRuns, startDashboard } from 'agentrl/internal';
import { haveBrowser, launchBrowser, until } from '../helpers/browser.js';
import { scriptedRun } from '../helpers/scripted-run.js';

// Every payload marks what it would inject with class "pwned" and, if it ran, sets window.__pwned.
const PAYLOADS = [
  `<img src=x class=pwned onerror="window.__pwned=1">`,
  `"><script class=pwned>window.__pwned=1</script>`,
  `'><svg class=pwned onload="window.__pwned=1"></svg>`,
  `</pre></div><iframe class=pwned srcdoc="<script>parent.__pwned=1</script>"></iframe>`,
  `\` onmouseover="window.__pwned=1" x="`,
  `javascript:window.__pwned=1`,
];
// A folder name cannot hold '/'.
const DIR_PAYLOAD = `run "'><img src=x class=pwned onerror=window.__pwned=1>`;

/** Replaces every string of a record with payloads (and, with `everything`, numbers and booleans too). */
function poison(v: unknown, k: number, everything: boolean): unknown {
  const p = PAYLOADS[k % PAYLOADS.length]!;
  if (typeof v === 'string') return p + v;
  if ((typeof v === 'number' || typeof v === 'boolean') && everything) return p;
  if (Array.isArray(v)) return v.map((x, i) => poison(x, k + i + 1, everything));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([key, x], i) => [key, key === 'step' ? x : poison(x, k + i + 1, everything)]));
  return v;
}

async function hostileRun(): Promise<string> {
  const dir = join(tmpdir(), `agentrl-xss-${process.pid}-${Date.now()}`, DIR_PAYLOAD);
  await mkdir(dir, { recursive: true });
  await scriptedRun({ steps: 2, logDir: dir });
  const records = (await readFile(join(dir, 'trajectories.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const hostile = [
    ...records.map((r, i) => poison(r, i, false)),
    ...records.map((r, i) => poison(r, i + 3, true)),
    { step: 1, id: PAYLOADS[0], messages: PAYLOADS[1], segments: { kind: PAYLOADS[2] }, reward: PAYLOADS[3] }, // wrong shapes
  ];
  await writeFile(join(dir, 'trajectories.jsonl'), hostile.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const metrics = (await readFile(join(dir, 'metrics.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const extra = { [`eval/${PAYLOADS[0]}_rate`]: 0.5, [`${PAYLOADS[1]}`]: 1, note: PAYLOADS[2], 'eval/average_at_n': 0.25 };
  await writeFile(join(dir, 'metrics.jsonl'), metrics.map((m) => JSON.stringify({ ...m, ...extra })).join('\n') + '\n');
  const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'config.json'), JSON.stringify({ ...(poison(config, 0, false) as object), runName: PAYLOADS[1] }));
  return dir;
}

interface Watch {
  dialogs: number;
  cspViolations: string[];
}
function watch(page: Page): Watch {
  const w: Watch = { dialogs: 0, cspViolations: [] };
  page.on('dialog', (d) => {
    w.dialogs++;
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) w.cspViolations.push(m.text());
  });
  return w;
}

async function expectNothingRan(page: Page, w: Watch, where: string): Promise<void> {
  const state = await page.evaluate<{ pwned: unknown; injected: number }>(
    "({ pwned: window.__pwned ?? null, injected: document.querySelectorAll('.pwned').length })",
  );
  expect(state, where).toEqual({ pwned: null, injected: 0 });
  expect(w.dialogs, where).toBe(0);
  // A CSP violation would mean markup got in and was only stopped by the policy: escaping must stop it first.
  expect(w.cspViolations, where).toEqual([]);
}

/** Hazard: a string from run data (an id, a folder name, any field of the run files) inserted as HTML runs script in the dashboard's origin. */
describe.skipIf(!haveBrowser)('dashboard and report.html render run data as text (headless Chromium)', () => {
  it('the detector sees a payload that is not escaped (the check can fail)', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const w = watch(page);
      await page.setContent(`<body>${PAYLOADS[0]}</body>`);
      await until(page, 'window.__pwned === 1');
      expect(await page.evaluate<number>("document.querySelectorAll('.pwned').length")).toBe(1);
      expect(w.cspViolations).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('runs nothing from any field, on every view of the dashboard and in report.html', async () => {
    const dir = await hostileRun();
    const dash = await startDashboard({ runDirs: [dir], port: 0, pollMs: 200 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const w = watch(page);
      const res = await page.goto(dash.url);
      const headers = res!.headers();
      expect(headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(headers['x-content-type-options']).toBe('nosniff');
      await until(page, "document.body.dataset.ready === '1'");
      // The payloads are on the page as text.
      expect(await page.textContent('#runs')).toContain(PAYLOADS[1]);
      expect(await page.evaluate<string>("document.querySelector('#run').textContent")).toContain(DIR_PAYLOAD);
      const charts = await page.evaluate<string[]>("[...document.querySelectorAll('#charts img')].map((i) => i.alt)");
      expect(charts.some((t) => t.includes(PAYLOADS[0]!.slice(5, 20)))).toBe(true); // the eval chart named after a hostile metric key
      for (const step of await page.evaluate<string[]>("[...document.querySelectorAll('#step option')].map((o) => o.value)")) {
        await page.selectOption('#step', step);
        // The list of the step just picked, not the previous step's list still on the page.
        await until(page, `document.querySelector('#list').dataset.step === ${JSON.stringify(step)} && document.querySelectorAll('#list button').length > 0`);
        const n = await page.evaluate<number>("document.querySelectorAll('#list button').length");
        for (let i = 0; i < n; i++) {
          await page.click(`#list button >> nth=${i}`);
          await until(
            page,
            `document.querySelectorAll('#list button')[${i}].classList.contains('sel') && document.querySelector('#detail').dataset.index === document.querySelectorAll('#list button')[${i}].dataset.index`,
          );
          await page.hover('#detail');
          await expectNothingRan(page, w, `dashboard, step ${step}, trajectory ${i}`);
        }
      }
      expect(await page.textContent('#detail')).toContain('onerror');
      // Each chart opened directly as a document (where an SVG's script would run).
      for (const name of await page.evaluate<string[]>("[...document.querySelectorAll('#charts img')].map((i) => i.dataset.chart)")) {
        const chart = await browser.newPage();
        const cw = watch(chart);
        await chart.goto(`${dash.url}/api/charts/${encodeURIComponent(name)}.svg`);
        await expectNothingRan(chart, cw, `chart ${name}`);
        await chart.close();
      }
      await expectNothingRan(page, w, 'dashboard');

      const { report } = await plotRuns([dir]);
      const rp = await browser.newPage();
      const rw = watch(rp);
      await rp.goto(`file://${report}`);
      expect(await rp.textContent('body')).toContain(PAYLOADS[3]!.slice(0, 30));
      expect(await rp.evaluate<number>("document.querySelectorAll('figure img').length")).toBeGreaterThan(5);
      await expectNothingRan(rp, rw, 'report.html');
      expect(await readFile(report, 'utf8')).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;/);
    } finally {
      await browser.close();
      await dash.close();
    }
  }, 240_000);
});
