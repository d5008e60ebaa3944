import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveBrowser, launchBrowser, until } from '../helpers/browser.js';
// @ts-expect-error -- a plain .mjs module without types
import { serveDemo } from '../../examples/browser/serve.mjs';

const run = promisify(execFile);

interface StepMessage {
  kind: 'step';
  step: number;
  metrics: Record<string, number>;
  stepMs: number;
}

/**
 * The demo page in headless Chromium: the ReTool agent trains in a Web Worker of the page (embedded engine, Pyodide
 * tool calls), the server only serving files. Guards the whole browser path: the agentrl/browser bundle, the platform
 * seams (checkpoint mounted from URLs, in-memory storage, hash, yield), the Pyodide sandbox and the typed messages.
 */
describe.skipIf(!haveBrowser)('the browser demo trains the ReTool agent in the page (headless Chromium)', () => {
  let browser: Browser | undefined;
  let server: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    await run(process.execPath, ['examples/browser/build.mjs']);
    server = (await serveDemo(0)) as { url: string; close(): Promise<void> };
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('runs 3 RL steps with finite rewards, real interpreter calls, and #step/#reward updated', async () => {
    const page = await browser!.newPage({ viewport: { width: 1200, height: 760 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server!.url}?steps=3&evalEvery=2`);
    await page.click('#start');
    const deadline = Date.now() + 420_000;
    let shot = false;
    for (;;) {
      const s = await page.evaluate<{ step: string; status: string }>(
        "({ step: document.getElementById('step').textContent, status: document.getElementById('status').textContent })",
      );
      if (!shot && s.step === '2') {
        mkdirSync('temp', { recursive: true });
        await page.screenshot({ path: 'temp/browser-demo-mid-run.png' });
        shot = true;
      }
      if (/^(finished|stopped|error)/.test(s.status)) break;
      if (Date.now() > deadline) throw new Error(`timed out at step ${s.step}: ${s.status}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(errors).toEqual([]);
    const received = await page.evaluate<{ kind: string }[]>('window.agentrlDemo.received');
    expect(received.filter((m) => m.kind === 'error')).toEqual([]);
    const steps = received.filter((m): m is StepMessage => m.kind === 'step');
    expect(steps.map((m) => m.step)).toEqual([1, 2, 3]);
    for (const m of steps) {
      expect(Number.isFinite(m.metrics['reward/mean'])).toBe(true);
      expect(Number.isFinite(m.metrics['optim/loss'])).toBe(true);
    }
    // Python really ran in the page: tool calls reached the Pyodide sandbox and most succeeded.
    const calls = steps.reduce((n, m) => n + (m.metrics['sandbox/calls'] ?? 0), 0);
    expect(calls).toBeGreaterThan(0);
    expect(Math.max(...steps.map((m) => m.metrics['sandbox/success_rate'] ?? 0))).toBeGreaterThan(0.5);
    // The held-out curve: step 0 and step 2.
    expect(received.filter((m) => m.kind === 'eval').length).toBe(2);
    expect(await page.textContent('#step')).toBe('3');
    expect(Number.isFinite(Number(await page.textContent('#reward')))).toBe(true);
    // The dashboard's viewer shows the step's best logged trajectory: trained (mask 1) and masked tokens.
    expect(received.filter((m) => m.kind === 'trajectory').map((m) => (m as unknown as { step: number }).step)).toEqual([1, 2, 3]);
    expect(await page.locator('#viewer article.trajectory .tokens .seg.trained').count()).toBeGreaterThan(0);
    expect(await page.locator('#viewer article.trajectory .tokens .seg.masked').count()).toBeGreaterThan(0);

    // The run is stored in IndexedDB: after a reload the page lists it and shows its curves, trajectory and checkpoint.
    const done = received.find((m) => m.kind === 'done') as unknown as { run: string };
    const evals = received.filter((m) => m.kind === 'eval') as unknown as { step: number; averageAtN: number }[];
    await page.reload();
    await until(page, "document.querySelectorAll('#runs option').length > 0");
    expect(await page.evaluate<string[]>("[...document.querySelectorAll('#runs option')].map((o) => o.value)")).toEqual([done.run]);
    expect(await page.textContent('#step')).toBe('0');
    await page.click('#load');
    await until(page, "document.getElementById('run-info').textContent.startsWith('stored run')");
    expect(await page.textContent('#run-info')).toBe(`stored run ${done.run}: 3 steps, checkpoint step-00003`);
    expect(await page.textContent('#step')).toBe('3');
    expect(await page.textContent('#reward')).toBe(steps[2]!.metrics['reward/mean']!.toFixed(3));
    const curves = await page.evaluate<{ rewards: [number, number][]; heldOut: [number, number][] }>(
      '({ rewards: window.agentrlDemo.rewards, heldOut: window.agentrlDemo.heldOut })',
    );
    expect(curves.rewards).toEqual(steps.map((m) => [m.step, m.metrics['reward/mean']]));
    expect(curves.heldOut).toEqual(evals.map((e) => [e.step, e.averageAtN]));
    expect(await page.textContent('#traj-step')).toBe('3');
    expect(await page.locator('#viewer article.trajectory .tokens .seg.trained').count()).toBeGreaterThan(0);
    await page.screenshot({ path: 'temp/browser-demo-stored-run.png', fullPage: true });
    expect(errors).toEqual([]);
    console.log(
      `browser demo: step ms ${steps.map((m) => Math.round(m.stepMs)).join(', ')}; train s ${steps.map((m) => m.metrics['time/train_s']!.toFixed(2)).join(', ')}`,
    );
  }, 480_000);

  it('Stop ends the run after the step in flight', async () => {
    const page = await browser!.newPage();
    await page.goto(`${server!.url}?steps=20&evalEvery=0`);
    await page.click('#start');
    const deadline = Date.now() + 300_000;
    while ((await page.textContent('#step')) === '0') {
      if (Date.now() > deadline) throw new Error('no step within the deadline');
      await new Promise((r) => setTimeout(r, 500));
    }
    await page.click('#stop');
    let status = '';
    while (!/^(finished|stopped|error)/.test(status)) {
      if (Date.now() > deadline) throw new Error(`not stopped: ${status}`);
      await new Promise((r) => setTimeout(r, 500));
      status = (await page.textContent('#status')) ?? '';
    }
    const m = /^stopped after (\d+) steps$/.exec(status);
    expect(m, status).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(20);
  }, 330_000);
});
