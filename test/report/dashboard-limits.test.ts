import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startDashboard } from 'agentrl';
import { haveBrowser, launchBrowser, until } from '../helpers/browser.js';
import { scriptedRun } from '../helpers/scripted-run.js';

/** Opens `/api/events` and resolves with its status once headers arrive; `ended` resolves when the server ends it. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<{ status: number; ended: Promise<number>; close: () => void }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const req = request(`${url}/api/events`, { headers }, (res) => {
      res.resume();
      const ended = new Promise<number>((r) => res.once('close', () => r(Date.now() - t0)));
      resolve({ status: res.statusCode ?? 0, ended, close: () => req.destroy() });
    });
    req.once('error', reject);
    req.end();
  });
}

/** Hazard: a dashboard that a few hundred held streams lock up, that sends no CSP, or whose page cannot load its data with --api-key. */
describe('dashboard limits and headers', () => {
  it('sends the CSP and nosniff on every answer, errors included', async () => {
    const dir = await scriptedRun({ steps: 1 });
    const dash = await startDashboard({ runDirs: [dir], port: 0 });
    try {
      for (const path of [
        '/',
        '/app.js',
        '/app.css',
        '/api/runs',
        '/api/charts',
        '/api/charts/reward.svg',
        '/api/charts/nope.svg',
        '/api/runs/9/steps',
        '/api/runs/0/trajectory?step=1&index=99',
        '/nope',
      ]) {
        const r = await fetch(dash.url + path);
        expect(r.headers.get('content-security-policy'), path).toMatch(/^default-src 'none'; script-src 'self';.*frame-ancestors 'none'$/);
        expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
        await r.arrayBuffer();
      }
      const page = await (await fetch(dash.url)).text();
      expect(page).not.toMatch(/<script>|<style>| on\w+=/); // nothing inline
    } finally {
      await dash.close();
    }
  });

  it('caps live streams per client and in total, ends them after their lifetime, and keeps answering requests', async () => {
    const dir = await scriptedRun({ steps: 1 });
    const dash = await startDashboard({ runDirs: [dir], port: 0, maxStreamsPerClient: 3, maxStreams: 5, streamMaxLifetimeMs: 1500 });
    const open: { close: () => void }[] = [];
    try {
      const first = await Promise.all([0, 1, 2].map(() => openStream(dash.url)));
      open.push(...first);
      expect(first.map((s) => s.status)).toEqual([200, 200, 200]);
      const refused = await openStream(dash.url);
      expect(refused.status).toBe(429);
      // Held streams take no request slot: the page's own requests still answer.
      expect((await fetch(`${dash.url}/api/runs`)).status).toBe(200);
      // The streams end by themselves; then there is room again.
      const lifetimes = await Promise.all(first.map((s) => s.ended));
      for (const ms of lifetimes) expect(ms).toBeGreaterThanOrEqual(1400);
      const again = await openStream(dash.url);
      open.push(again);
      expect(again.status).toBe(200);
      again.close();
      // A closed stream frees its place at once.
      await new Promise((r) => setTimeout(r, 100));
      const afterClose = await Promise.all([0, 1, 2].map(() => openStream(dash.url)));
      open.push(...afterClose);
      expect(afterClose.map((s) => s.status)).toEqual([200, 200, 200]);
    } finally {
      for (const s of open) s.close();
      await dash.close();
    }
  });

  it('counts streams per client address and in total', async () => {
    const { StreamGate } = await import('../../src/report/dashboard-security.js');
    const gate = new StreamGate({ maxStreamsPerClient: 2, maxStreams: 3, streamMaxLifetimeMs: 1000 });
    const a1 = gate.open('10.0.0.1')!;
    const a2 = gate.open('10.0.0.1')!;
    expect(gate.open('10.0.0.1')).toBeUndefined(); // per client
    const b1 = gate.open('10.0.0.2')!;
    expect(gate.open('10.0.0.3')).toBeUndefined(); // in total
    a1();
    a1(); // releasing twice frees one place only
    expect(gate.count).toBe(2);
    expect(gate.open('10.0.0.3')).toBeDefined();
    expect(gate.open('10.0.0.2')).toBeUndefined();
    a2();
    b1();
    const dir = await scriptedRun({ steps: 1 });
    const dash = await startDashboard({ runDirs: [dir], port: 0, maxStreamsPerClient: 10, maxStreams: 2 });
    const open = await Promise.all([0, 1, 2].map(() => openStream(dash.url)));
    try {
      expect(open.map((s) => s.status).sort()).toEqual([200, 200, 429]);
    } finally {
      for (const s of open) s.close();
      await dash.close();
    }
  });

  it('trades a key given once in the URL for an HttpOnly session cookie', async () => {
    const dir = await scriptedRun({ steps: 1 });
    const dash = await startDashboard({ runDirs: [dir], port: 0, apiKey: 'k-123' });
    try {
      expect((await fetch(`${dash.url}/api/runs`)).status).toBe(401);
      expect((await fetch(`${dash.url}/?key=wrong`, { redirect: 'manual' })).status).toBe(401);
      expect((await fetch(`${dash.url}/api/runs?key=k-123`)).status).toBe(401); // the URL key only opens the page
      expect((await fetch(`${dash.url}/api/runs`, { headers: { authorization: 'Bearer k-123' } })).status).toBe(200);
      const r = await fetch(`${dash.url}/?key=k-123`, { redirect: 'manual' });
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toBe('/');
      const cookie = r.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^agentrl_dashboard=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\/$/);
      expect(cookie).not.toContain('k-123');
      const jar = cookie.split(';')[0]!;
      expect((await fetch(`${dash.url}/api/runs`, { headers: { cookie: jar } })).status).toBe(200);
      expect((await fetch(`${dash.url}/api/runs`, { headers: { cookie: 'agentrl_dashboard=forged' } })).status).toBe(401);
      expect((await openStream(dash.url, { cookie: jar })).status).toBe(200);
    } finally {
      await dash.close();
    }
  });

  it.skipIf(!haveBrowser)(
    'with --api-key, the page works in a browser after opening URL/?key=KEY once',
    async () => {
      const dir = await scriptedRun({ steps: 2 });
      const dash = await startDashboard({ runDirs: [dir], port: 0, apiKey: 'k-browser' });
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        await page.goto(`${dash.url}/?key=k-browser`);
        expect(new URL(page.url()).search).toBe(''); // the key left the address bar
        await until(
          page,
          "document.body.dataset.ready === '1' && document.querySelectorAll('#charts img').length > 5 && [...document.querySelectorAll('#charts img')].every((i) => i.complete && i.naturalWidth > 0)",
        );
        await until(page, "document.querySelector('#live').textContent.startsWith('live')");
        const cookies = await page.context().cookies();
        expect(cookies.find((c) => c.name === 'agentrl_dashboard')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
        expect(await page.evaluate<string>('document.cookie')).toBe(''); // not readable by script
        // Without the cookie (a fresh context) the page cannot load its data.
        const other = await browser.newPage();
        const res = await other.goto(dash.url);
        expect(res!.status()).toBe(401);
      } finally {
        await browser.close();
        await dash.close();
      }
    },
    300_000,
  ); // ~40 s on a quiet machine; chart rendering takes minutes on a saturated one
});
