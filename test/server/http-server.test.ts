import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { clientGone, createHttpServer, type HttpServer, type HttpServerOptions } from '../../src/http/index.js';
import { effectiveMaxConnections, openFilesLimit, resolveHttpLimits } from '../../src/http/limits.js';
import { closed, deferred, postJson, rawConnect, send, sleep, until } from './helpers.js';

const servers: HttpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A layer server with `/echo` (POST, echoes the body), `/ping` (exempt from admission) and `/hold/:id` (waits for release). */
async function start(opts: Partial<HttpServerOptions> = {}) {
  const s = createHttpServer({ name: 'test server', ...opts });
  servers.push(s);
  const holds = new Map<string, { resolve: () => void }>();
  const started: string[] = [];
  const aborted: string[] = [];
  s.app.post('/echo', async (req) => ({ got: req.body ?? null }));
  s.app.get('/ping', { config: { admission: false } }, async () => 'pong');
  s.app.get<{ Params: { id: string } }>('/hold/:id', async (req, reply) => {
    const id = req.params.id;
    started.push(id);
    const d = deferred();
    holds.set(id, d);
    const gone = clientGone(reply);
    gone.addEventListener('abort', () => {
      aborted.push(id);
      d.resolve();
    });
    await d.promise;
    return { id };
  });
  const url = await s.listen();
  return { s, url, started, aborted, release: (id: string) => holds.get(id)?.resolve() };
}

describe('createHttpServer: request deadlines', () => {
  it('cuts a stalled body with 408 and closes the connection, and gives its body bytes back', async () => {
    const { s, url } = await start({ limits: { requestTimeoutMs: 300 } });
    const sock = await rawConnect(url);
    const done = closed(sock);
    sock.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":');
    const got = await done;
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(s.stats().bufferedBodyBytes).toBe(0);
    expect(s.stats().peakBufferedBodyBytes).toBe(1000);
    expect((await send(url, { path: '/ping' })).text).toBe('pong');
  });

  it('cuts stalled headers (slowloris) after headersTimeoutMs', async () => {
    const { url } = await start({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 5000 } });
    const sock = await rawConnect(url);
    const done = closed(sock);
    sock.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const t = setInterval(() => sock.writable && sock.write('a'), 50); // keeps trickling, never ends the headers
    try {
      expect(await done).toMatch(/408|^$/);
    } finally {
      clearInterval(t);
    }
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', async () => {
    const { url } = await start({ limits: { keepAliveTimeoutMs: 200 } });
    const sock = await rawConnect(url);
    const done = closed(sock);
    sock.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await done).toContain('pong');
  });

  it('refuses huge headers (431) and keeps serving', async () => {
    const { url } = await start();
    const r = await send(url, { path: '/ping', headers: { 'x-huge': 'h'.repeat(64 * 1024) } }).catch((e: unknown) => e);
    expect(r instanceof Error ? 'reset' : String((r as { status: number }).status)).toMatch(/431|reset/);
    expect((await send(url, { path: `/ping?${'q'.repeat(20_000)}` })).status).toBe(431);
    expect((await send(url, { path: '/ping' })).text).toBe('pong');
  });

  it('refuses a declared body over maxBodyBytes with 413 before reading it', async () => {
    const { s, url } = await start({ limits: { maxBodyBytes: 1000 } });
    const r = await postJson(url, '/echo', { x: 'y'.repeat(2000) });
    expect(r.status).toBe(413);
    expect(s.stats().peakBufferedBodyBytes).toBe(0);
  });
});

describe('createHttpServer: memory and connections', () => {
  it('holds at most maxBufferedBodyBytes of unfinished bodies, whatever many clients send (503 beyond), with bounded RSS', async () => {
    // Hazard: 300 connections each holding an unfinished 8 MiB body took 2.4 GB.
    const budget = 8 * 1024 * 1024;
    const { s, url } = await start({ limits: { maxBodyBytes: 8 * 1024 * 1024, maxBufferedBodyBytes: budget, requestTimeoutMs: 20_000 } });
    const part = Buffer.alloc(2 * 1024 * 1024, 0x20); // one shared buffer: the client side holds no copies
    const n = 48;
    const rss0 = process.memoryUsage().rss;
    const socks = await Promise.all(Array.from({ length: n }, () => rawConnect(url)));
    const answers = socks.map(closed);
    socks.forEach((sock, i) => {
      // Half declare 8 MiB, half stream chunked; none finishes its body.
      if (i % 2 === 0) sock.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n[');
      else sock.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = i % 2 === 0 ? part : Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
      sock.write(chunk);
    });
    // Every connection ends: answered 503 (over budget) or still stalled, which we cut ourselves below.
    await until(() => s.stats().shed >= n - 8, 30_000);
    const rssPeak = process.memoryUsage().rss;
    expect(s.stats().peakBufferedBodyBytes).toBeLessThanOrEqual(budget);
    expect(s.stats().shed).toBeGreaterThanOrEqual(n - 8);
    for (const sock of socks) sock.destroy();
    const got = await Promise.all(answers);
    // Not every 503 reaches its client: closing a socket with unread input sends a reset that may discard it.
    const refusals = got.filter((g) => g.startsWith('HTTP/1.1 503'));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatch(/retry-after: 1/i);
    expect(refusals[0]).toMatch(/connection: close/i);
    // Unbounded, the server would hold 48 × 2 MiB = 96 MiB of body text (more as strings); RSS is noisy, so the bound is loose.
    expect(rssPeak - rss0).toBeLessThan(80 * 1024 * 1024);
    await until(() => s.stats().bufferedBodyBytes === 0, 5000);
    expect(s.stats().bufferedBodyBytes).toBe(0);
    expect((await send(url, { path: '/ping' })).text).toBe('pong');
  }, 60_000);

  it('at the connection limit, stalled and idle connections are cut by the deadlines: the ping answers again', async () => {
    // Hazard: at the file-descriptor limit even the ping stopped answering.
    const { s, url } = await start({ limits: { maxConnections: 8, headersTimeoutMs: 300, requestTimeoutMs: 300 } });
    const stalled = await Promise.all(Array.from({ length: 4 }, () => rawConnect(url)));
    const idle = await Promise.all(Array.from({ length: 4 }, () => rawConnect(url)));
    const ends = [...stalled, ...idle].map(closed);
    for (const sock of stalled) sock.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never end
    await until(() => s.stats().connections === 8, 5000);
    let answered = false;
    for (let i = 0; i < 100 && !answered; i++) {
      try {
        answered = (await send(url, { path: '/ping' })).text === 'pong';
      } catch {
        await sleep(50); // dropped at accept; retry
      }
    }
    expect(answered).toBe(true);
    await Promise.all(ends); // every hog was closed by the server
    expect(s.stats().connections).toBeLessThanOrEqual(1);
  }, 30_000);

  it('caps connections per remote address: one host cannot hold every slot', async () => {
    const { s, url } = await start({ limits: { maxConnections: 10, maxConnectionsPerClient: 3, headersTimeoutMs: 5000, requestTimeoutMs: 5000 } });
    const mine = await Promise.all([0, 1, 2].map(() => rawConnect(url, '127.0.0.1')));
    await until(() => s.stats().connections === 3);
    const extra = await rawConnect(url, '127.0.0.1');
    expect(await closed(extra)).toBe(''); // closed at accept, nothing served
    expect(s.stats().droppedConnections).toBe(1);
    expect((await send(url, { path: '/ping', localAddress: '127.0.0.2' })).text).toBe('pong');
    for (const m of mine) m.destroy();
    await until(() => s.stats().connections === 0);
    expect((await send(url, { path: '/ping', localAddress: '127.0.0.1' })).text).toBe('pong');
  });

  it('keeps fdHeadroom descriptors free below RLIMIT_NOFILE', () => {
    const l = resolveHttpLimits('t', { maxConnections: 100_000, fdHeadroom: 128 });
    expect(effectiveMaxConnections(l, 1024)).toBe(896);
    expect(effectiveMaxConnections(l, 100)).toBe(1);
    expect(effectiveMaxConnections(resolveHttpLimits('t', { maxConnections: 50 }), 1024)).toBe(50);
    const nofile = openFilesLimit();
    if (process.platform === 'linux') expect(nofile).toBeGreaterThan(0);
    const s = createHttpServer({ name: 't', limits: { maxConnections: 1 << 30 } });
    servers.push(s);
    if (nofile !== undefined) expect(s.stats().maxConnections).toBe(Math.max(1, Math.min(1 << 30, nofile - 128)));
  });
});

describe('createHttpServer: browsers and keys', () => {
  it('refuses cross-origin browser requests, DNS-rebound hosts and browser text/plain or form bodies', async () => {
    // Hazard: a web page could POST text/plain JSON to a loopback server (and run code in sandbox-serve).
    const { url } = await start({ allowedOrigins: ['http://localhost:5173'] });
    const port = new URL(url).port;
    const body = '{"a":1}';
    const post = (headers: Record<string, string>) => send(url, { path: '/echo', body, headers });
    expect((await post({ 'content-type': 'text/plain', origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'content-type': 'text/plain', origin: 'null' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', host: `evil.example:${port}` })).status).toBe(403);
    // Same-origin browser requests: JSON is fine, text/plain and forms are not.
    const own = { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' };
    expect((await post({ ...own, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post({ ...own, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await post({ ...own, 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415);
    const ok = await post({ ...own, 'content-type': 'application/json' });
    expect([ok.status, ok.text]).toEqual([200, '{"got":{"a":1}}']);
    expect((await post({ origin: 'http://localhost:5173', 'content-type': 'application/json' })).status).toBe(200);
    expect((await post({ host: `localhost:${port}`, 'content-type': 'application/json' })).status).toBe(200);
    // Non-browser clients may omit the content type or send text/plain (compatibility).
    expect((await send(url, { path: '/echo', body })).text).toBe('{"got":{"a":1}}');
    expect((await post({ 'content-type': 'text/plain;charset=UTF-8' })).text).toBe('{"got":{"a":1}}');
    expect((await post({ 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await post({ 'content-type': 'application/json', 'x-bad': '1' })).status).toBe(200);
    expect((await send(url, { path: '/echo', body: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } })).status).toBe(400);
  });

  it('requires the API key when set (Bearer or X-API-Key), and for any non-loopback bind', async () => {
    const { url } = await start({ apiKeys: ['k1', 'k2'] });
    expect((await send(url, { path: '/ping' })).status).toBe(401);
    expect((await send(url, { path: '/ping', headers: { authorization: 'Bearer k3' } })).status).toBe(401);
    expect((await send(url, { path: '/ping', headers: { authorization: 'Bearer k1x' } })).status).toBe(401);
    expect((await send(url, { path: '/ping', headers: { authorization: 'Bearer k1' } })).text).toBe('pong');
    expect((await send(url, { path: '/ping', headers: { 'x-api-key': 'k2' } })).text).toBe('pong');
    expect(() => createHttpServer({ name: 'x', host: '0.0.0.0' })).toThrow(ConfigError);
    expect(() => createHttpServer({ name: 'x', apiKey: '' })).toThrow(ConfigError);
    const s = createHttpServer({ name: 'x' });
    servers.push(s);
    await expect(s.listen({ host: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);
    expect(() => createHttpServer({ name: 'x', limits: { maxInFlight: 0 } })).toThrow(/limits\.maxInFlight/);
  });
});

describe('createHttpServer: load shedding and fairness', () => {
  it('one client’s backlog does not starve another: a freed slot goes to the client holding fewer', async () => {
    // Hazard: one client's many long calls held every slot and queued ahead of everyone else.
    const { url, started, release } = await start({ limits: { maxInFlight: 2, maxQueued: 100 } });
    const a = Array.from({ length: 6 }, (_, i) => send(url, { path: `/hold/a${i}`, localAddress: '127.0.0.1' }));
    await until(() => started.length === 2);
    const b = send(url, { path: '/hold/b0', localAddress: '127.0.0.2' });
    await sleep(100);
    expect(started).toEqual(['a0', 'a1']);
    release('a0');
    await until(() => started.length === 3);
    expect(started[2]).toBe('b0'); // not a2, which came first
    release('b0');
    expect((await b).text).toBe('{"id":"b0"}');
    for (let i = 1; i < 6; i++) {
      await until(() => started.includes(`a${i}`));
      release(`a${i}`);
    }
    expect((await Promise.all(a)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  }, 30_000);

  it('caps one client’s slots with maxInFlightPerClient', async () => {
    const { url, started, release } = await start({ limits: { maxInFlight: 4, maxInFlightPerClient: 2 } });
    const a = Array.from({ length: 3 }, (_, i) => send(url, { path: `/hold/a${i}`, localAddress: '127.0.0.1' }));
    await until(() => started.length === 2);
    const b = send(url, { path: '/hold/b0', localAddress: '127.0.0.2' });
    await until(() => started.includes('b0'));
    expect(started.sort()).toEqual(['a0', 'a1', 'b0']);
    ['a0', 'a1', 'b0'].forEach(release);
    await until(() => started.includes('a2'));
    release('a2');
    await Promise.all([...a, b]);
  });

  it('sheds with 503 + Retry-After when the queue is full or the wait too long; health routes still answer', async () => {
    const { s, url, started, release } = await start({ limits: { maxInFlight: 1, maxQueued: 1, queueTimeoutMs: 300 } });
    const running = send(url, { path: '/hold/a0', localAddress: '127.0.0.1' });
    await until(() => started.length === 1);
    const queued = send(url, { path: '/hold/a1', localAddress: '127.0.0.1' });
    await until(() => s.stats().queued === 1);
    const full = await send(url, { path: '/hold/a2', localAddress: '127.0.0.1' });
    expect(full.status).toBe(503);
    expect(full.headers['retry-after']).toBe('1');
    // Another client displaces the heaviest client's newest waiter rather than being refused.
    const other = send(url, { path: '/hold/b0', localAddress: '127.0.0.2' });
    expect((await queued).status).toBe(503);
    expect((await send(url, { path: '/ping' })).text).toBe('pong');
    const timedOut = await other; // a0 never finishes within queueTimeoutMs
    expect(timedOut.status).toBe(503);
    expect(timedOut.text).toMatch(/no slot within 300 ms/);
    release('a0');
    expect((await running).status).toBe(200);
    expect(s.stats()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(s.stats().shed).toBeGreaterThanOrEqual(3);
  });

  it('aborts clientGone when the client disconnects, and frees its slot', async () => {
    const { s, url, started, aborted } = await start({ limits: { maxInFlight: 1 } });
    const ac = new AbortController();
    const p = send(url, { path: '/hold/x', signal: ac.signal }).catch((e: unknown) => e);
    await until(() => started.length === 1);
    ac.abort();
    await p;
    expect(await until(() => aborted.includes('x'))).toBe(true);
    expect(await until(() => s.stats().inFlight === 0)).toBe(true);
  });
});
