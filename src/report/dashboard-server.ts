import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from '../util/zod.js';
import { ConfigError } from '../errors/config-error.js';
import { configIssuesFromZod } from '../errors/config-issues.js';
import { createHttpServer, type HttpServer } from '../http/index.js';
import { chartSpec, chartsFor } from './charts.js';
import { DASHBOARD_CSS, DASHBOARD_HTML, DASHBOARD_JS } from './dashboard-page.js';
import { BrowserSessions, DASHBOARD_HEADERS, queryKey, StreamGate } from './dashboard-security.js';
import { chartReadout, renderChartSvg } from './render.js';
import { describeRunWarnings, readTrajectory, RunIndex, type RunData } from './run-data.js';
import { trajectoryHtml } from './trajectory-html.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** Run directories (Trainer `logDir`s) shown side by side. */
  readonly runDirs: readonly string[];
  /** Bind address. @default '127.0.0.1' */
  readonly host?: string;
  /** TCP port; 0 picks a free one. @default 6006 */
  readonly port?: number;
  /**
   * Required when `host` is not loopback. Scripts send `Authorization: Bearer KEY`; a browser opens
   * `URL/?key=KEY` once and gets an HttpOnly session cookie (see docs/report.md).
   */
  readonly apiKey?: string;
  /** How often the run files are checked for changes, ms. @default 1000 */
  readonly pollMs?: number;
  /** Live-update streams (`/api/events`) open at once per client address. @default 8 */
  readonly maxStreamsPerClient?: number;
  /** Live-update streams open at once in total. @default 64 */
  readonly maxStreams?: number;
  /** A live-update stream is ended after this long (browsers reconnect by themselves), ms. @default 300000 */
  readonly streamMaxLifetimeMs?: number;
  /** Longest record of a run file that is read; longer ones are skipped and counted, bytes. @default 64 MiB */
  readonly maxRecordBytes?: number;
}

/** A running dashboard. */
export interface Dashboard {
  /** Base URL, e.g. `http://127.0.0.1:6006`. */
  readonly url: string;
  /** Stops the server and the file watcher. */
  close(): Promise<void>;
}

const posInt = z.number().int().positive();
const optionsSchema = z.strictObject({
  runDirs: z.array(z.string().min(1)).min(1, 'give at least one run directory'),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  apiKey: z.string().min(1).optional(),
  pollMs: posInt.optional(),
  maxStreamsPerClient: posInt.optional(),
  maxStreams: posInt.optional(),
  streamMaxLifetimeMs: posInt.optional(),
  maxRecordBytes: posInt.optional(),
});

async function fingerprint(dirs: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const d of dirs) {
    for (const f of ['metrics.jsonl', 'trajectories.jsonl', 'config.json']) {
      const s = await stat(join(d, f)).catch(() => undefined);
      parts.push(s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '-');
    }
  }
  return parts.join('|');
}

/**
 * Serves a live dashboard of one or more runs: the report's charts (re-rendered when the run files change,
 * pushed to the page as server-sent `update` events) and a trajectory viewer over `trajectories.jsonl`.
 * Binds to loopback by default, on the shared hardened HTTP layer. The run files are indexed incrementally
 * (bounded memory, a multi-GiB `trajectories.jsonl` opens); malformed records are skipped and counted, shown on
 * the page. Every response carries a strict Content-Security-Policy and `X-Content-Type-Options: nosniff`; every
 * value from the runs reaches the page as text. Live-update streams are capped per client and in total, and end
 * after `streamMaxLifetimeMs`.
 * @throws ConfigError for invalid options, or when a run directory does not exist or has no `metrics.jsonl` yet (checked at start).
 */
export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const parsed = optionsSchema.safeParse(opts);
  if (!parsed.success) throw new ConfigError('dashboard options', configIssuesFromZod(parsed.error.issues, opts));
  const o = parsed.data;
  const indexes = o.runDirs.map((d) => new RunIndex(d, o.maxRecordBytes === undefined ? {} : { maxRecordBytes: o.maxRecordBytes }));
  await Promise.all(indexes.map((i) => i.refresh()));
  const dirs = indexes.map((i) => i.dir);
  let version = 0;
  let snapshots: RunData[] = indexes.map((i) => i.snapshot());
  let lastPrint = await fingerprint(dirs);
  const svgCache = new Map<string, Promise<string>>();
  const listeners = new Set<(v: number) => void>();
  const streams = new Set<ServerResponse>();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    void (async () => {
      const p = await fingerprint(dirs);
      if (p === lastPrint) return;
      lastPrint = p;
      // A run folder that went away keeps its last snapshot; the others update.
      await Promise.all(indexes.map((i) => i.refresh().catch(() => undefined)));
      snapshots = indexes.map((i) => i.snapshot());
      svgCache.clear();
      version++;
      for (const l of listeners) l(version);
    })().finally(() => {
      polling = false;
    });
  }, o.pollMs ?? 1000);
  timer.unref();

  const sessions = o.apiKey !== undefined ? new BrowserSessions(o.apiKey) : undefined;
  const server: HttpServer = createHttpServer({
    name: 'dashboard',
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 6006,
    ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
    ...(sessions ? { keyFromRequest: (req) => sessions.keyFrom(req) } : {}),
  });
  const gate = new StreamGate({
    maxStreamsPerClient: o.maxStreamsPerClient ?? 8,
    maxStreams: o.maxStreams ?? 64,
    streamMaxLifetimeMs: o.streamMaxLifetimeMs ?? 300_000,
  });
  const app = server.app;
  app.addHook('onSend', async (_req, reply, payload) => {
    for (const [k, v] of Object.entries(DASHBOARD_HEADERS)) void reply.header(k, v);
    return payload;
  });
  const runAt = (i: string) => (/^\d{1,6}$/.test(i) ? { run: snapshots[Number(i)], index: indexes[Number(i)] } : undefined);

  app.get('/', async (req, reply) => {
    if (queryKey(req.url) !== undefined) {
      // Reaching here, the key was accepted (or none is needed): trade it for a session cookie, drop it from the URL.
      if (sessions) void reply.header('set-cookie', sessions.cookie(sessions.issue()));
      return reply.code(303).header('location', '/').header('cache-control', 'no-store').send();
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(DASHBOARD_HTML);
  });
  app.get('/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(DASHBOARD_JS));
  app.get('/app.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(DASHBOARD_CSS));
  app.get('/api/runs', async () =>
    snapshots.map((r, index) => ({
      index,
      name: r.name,
      detail: r.detail,
      dir: r.dir,
      steps: r.metrics.length,
      trajectories: r.trajectories.length,
      skipped: r.warnings.reduce((n, w) => n + w.skipped, 0),
      warnings: describeRunWarnings(r),
    })),
  );
  app.get('/api/charts', async () => chartsFor(snapshots).map((c) => ({ name: c.name, title: c.title, metrics: c.metrics })));
  app.get<{ Params: { name: string } }>('/api/charts/:name', async (req, reply) => {
    const json = req.params.name.endsWith('.json');
    const name = req.params.name.replace(/\.(svg|json)$/, '');
    const all = snapshots;
    const chart = chartsFor(all).find((c) => c.name === name);
    if (!chart) return reply.code(404).send({ error: 'no such chart' });
    // The hover readout: each step's x in the SVG and each series' value there (the page maps the pointer to a step).
    if (json) return reply.header('cache-control', 'no-store').send({ steps: await chartReadout(chartSpec(all, chart)) });
    let svg = svgCache.get(name);
    if (!svg) svgCache.set(name, (svg = renderChartSvg(chartSpec(all, chart))));
    return reply
      .type('image/svg+xml')
      .header('cache-control', 'no-store')
      .send(await svg);
  });
  app.get<{ Params: { i: string } }>('/api/runs/:i/steps', async (req, reply) => {
    const at = runAt(req.params.i);
    if (!at?.index) return reply.code(404).send({ error: 'no such run' });
    return at.index.steps();
  });
  app.get<{ Params: { i: string }; Querystring: { step?: string } }>('/api/runs/:i/trajectories', async (req, reply) => {
    const at = runAt(req.params.i);
    if (!at?.index) return reply.code(404).send({ error: 'no such run' });
    return at.index.trajectoriesAt(Number(req.query.step)).map((t) => ({
      index: t.index,
      id: t.id,
      reward: t.reward,
      correct: t.correct,
      stopReason: t.stopReason,
      toolCalls: t.toolCalls,
      advantage: t.advantage,
    }));
  });
  app.get<{ Params: { i: string }; Querystring: { step?: string; index?: string } }>('/api/runs/:i/trajectory', async (req, reply) => {
    const at = runAt(req.params.i);
    const entry = at?.index?.trajectoriesAt(Number(req.query.step))[Number(req.query.index)];
    const t = at?.run && entry ? await readTrajectory(at.run, entry) : undefined;
    if (!t) return reply.code(404).type('text/html; charset=utf-8').send('<p>No such trajectory.</p>');
    return reply.type('text/html; charset=utf-8').send(trajectoryHtml(t));
  });
  // A stream is held open for minutes: it takes no in-flight slot of the HTTP layer (that would starve the page's
  // own requests); the gate caps streams per client and in total instead.
  app.get('/api/events', { config: { admission: false } }, (req, reply) => {
    const release = gate.open(req.socket.remoteAddress ?? 'unknown');
    if (!release) {
      return reply
        .code(429)
        .header('retry-after', '10')
        .send({
          error: `too many live-update streams (at most ${gate.limits.maxStreamsPerClient} per client, ${gate.limits.maxStreams} in total)`,
          code: 'TOO_MANY_STREAMS',
        });
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...DASHBOARD_HEADERS, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const send = (v: number) => res.write(`event: update\ndata: ${v}\n\n`);
    res.write('retry: 2000\n\n');
    send(version);
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    const lifetime = setTimeout(() => res.end(), gate.limits.streamMaxLifetimeMs);
    listeners.add(send);
    streams.add(res);
    const done = () => {
      clearInterval(ping);
      clearTimeout(lifetime);
      listeners.delete(send);
      streams.delete(res);
      release();
    };
    res.once('close', done);
    req.raw.once('close', done);
    return reply;
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
