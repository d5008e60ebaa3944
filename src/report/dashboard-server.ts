import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createHttpServer, type HttpServer } from '../server/index.js';
import { chartSpec, chartsFor } from './charts.js';
import { DASHBOARD_HTML } from './dashboard-page.js';
import { renderChartSvg } from './render.js';
import { readRun, type RunData } from './run-data.js';
import { trajectoryHtml } from './trajectory-html.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** Run directories (Trainer `logDir`s) shown side by side. */
  readonly runDirs: readonly string[];
  /** Bind address. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 6006 */
  readonly port?: number;
  /** Required when `host` is not loopback (see the shared HTTP layer). */
  readonly apiKey?: string;
  /** How often the run files are checked for changes, ms. @default 1000 */
  readonly pollMs?: number;
}

/** A running dashboard. */
export interface Dashboard {
  /** Base URL, e.g. `http://127.0.0.1:6006`. */
  readonly url: string;
  /** Stops the server and the file watcher. */
  close(): Promise<void>;
}

async function fingerprint(dirs: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const d of dirs) {
    for (const f of ['metrics.jsonl', 'trajectories.jsonl']) {
      const s = await stat(join(d, f)).catch(() => undefined);
      parts.push(s ? `${s.size}:${s.mtimeMs}` : '-');
    }
  }
  return parts.join('|');
}

/**
 * Serves a live dashboard of one or more runs: the report's charts (re-rendered when the run files change,
 * pushed to the page as server-sent `update` events) and a trajectory viewer over `trajectories.jsonl`.
 * Binds to loopback by default, on the shared hardened HTTP layer.
 * @throws Error when a run directory does not exist or has no `metrics.jsonl` yet (checked at start).
 */
export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const dirs = opts.runDirs.map((d) => resolve(d));
  if (dirs.length === 0) throw new Error('dashboard: give at least one run directory');
  await Promise.all(dirs.map((d) => readRun(d)));
  let version = 0;
  let lastPrint = await fingerprint(dirs);
  let cache: { version: number; runs: Promise<RunData[]> } | undefined;
  const svgCache = new Map<string, Promise<string>>();
  const runs = () => {
    if (cache?.version !== version) {
      cache = { version, runs: Promise.all(dirs.map((d) => readRun(d))) };
      svgCache.clear();
    }
    return cache.runs;
  };
  const listeners = new Set<(v: number) => void>();
  const streams = new Set<import('node:http').ServerResponse>();
  const timer = setInterval(() => {
    void fingerprint(dirs).then((p) => {
      if (p === lastPrint) return;
      lastPrint = p;
      version++;
      for (const l of listeners) l(version);
    });
  }, opts.pollMs ?? 1000);
  timer.unref();

  const server: HttpServer = createHttpServer({ name: 'dashboard', host: opts.host ?? '127.0.0.1', port: opts.port ?? 6006, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) });
  const app = server.app;
  const runAt = async (i: string) => {
    const all = await runs();
    const run = all[Number(i)];
    return Number.isInteger(Number(i)) ? run : undefined;
  };
  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(DASHBOARD_HTML));
  app.get('/api/runs', async () => (await runs()).map((r, index) => ({ index, name: r.name, dir: r.dir, steps: r.metrics.length, trajectories: r.trajectories.length })));
  app.get('/api/charts', async () => chartsFor(await runs()).map((c) => ({ name: c.name, title: c.title, metrics: c.metrics })));
  app.get<{ Params: { name: string } }>('/api/charts/:name', async (req, reply) => {
    const name = req.params.name.replace(/\.svg$/, '');
    const all = await runs();
    const chart = chartsFor(all).find((c) => c.name === name);
    if (!chart) return reply.code(404).send({ error: `no chart '${name}'` });
    let svg = svgCache.get(name);
    if (!svg) svgCache.set(name, (svg = renderChartSvg(chartSpec(all, chart))));
    return reply.type('image/svg+xml').header('cache-control', 'no-store').send(await svg);
  });
  app.get<{ Params: { i: string } }>('/api/runs/:i/steps', async (req, reply) => {
    const run = await runAt(req.params.i);
    if (!run) return reply.code(404).send({ error: 'no such run' });
    return [...new Set(run.trajectories.map((t) => t.step))].sort((a, b) => a - b);
  });
  app.get<{ Params: { i: string }; Querystring: { step?: string } }>('/api/runs/:i/trajectories', async (req, reply) => {
    const run = await runAt(req.params.i);
    if (!run) return reply.code(404).send({ error: 'no such run' });
    const step = Number(req.query.step);
    return run.trajectories
      .filter((t) => t.step === step)
      .map((t) => ({ id: t.id, reward: t.reward, correct: t.correct, stopReason: t.stopReason, toolCalls: t.toolCalls, advantage: t.advantage }));
  });
  app.get<{ Params: { i: string }; Querystring: { step?: string; id?: string } }>('/api/runs/:i/trajectory', async (req, reply) => {
    const run = await runAt(req.params.i);
    const t = run?.trajectories.find((x) => x.step === Number(req.query.step) && x.id === req.query.id);
    if (!t) return reply.code(404).type('text/html').send('<p>No such trajectory.</p>');
    return reply.type('text/html; charset=utf-8').send(trajectoryHtml(t));
  });
  app.get('/api/events', (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const send = (v: number) => res.write(`event: update\ndata: ${v}\n\n`);
    send(version);
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    listeners.add(send);
    streams.add(res);
    req.raw.on('close', () => {
      clearInterval(ping);
      listeners.delete(send);
      streams.delete(res);
    });
  });
  const url = await server.listen();
  return {
    url,
    async close() {
      clearInterval(timer);
      listeners.clear();
      for (const res of streams) res.end();
      await server.close();
    },
  };
}
