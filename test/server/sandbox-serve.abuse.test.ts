import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxServer, remoteSandbox, type SandboxServer } from '../../adapters/remote/index.js';
import { clampRunTimeoutMs } from '../../adapters/remote/server.js';
import { localSandbox, type LocalSandboxWarning } from '../../adapters/local/index.js';
import { registerBuiltinCommands, runCli } from '../../apps/cli/index.js';
import { ConfigError, SandboxUnavailableError } from '../../src/errors/index.js';
import type { ExecResult, RunRequest, Sandbox } from '../../src/types/exec-result.js';
import { closed, deferred, postJson, rawConnect, send, until } from './helpers.js';

const ok = (stdout: string): ExecResult => ({ status: 'ok', exitCode: 0, signal: null, stdout, stderr: '', truncated: false, wallMs: 1 });

/** A scripted sandbox recording each request; `hold` calls wait until released or aborted. */
function scripted() {
  const seen: RunRequest[] = [];
  const aborted: string[] = [];
  const holds = new Map<string, () => void>();
  const sb: Sandbox = {
    name: 'scripted',
    async run(req, signal) {
      seen.push(req);
      if (req.code.startsWith('hold')) {
        const d = deferred();
        holds.set(req.code, d.resolve);
        await new Promise<void>((resolve, reject) => {
          d.promise.then(resolve, reject);
          signal?.addEventListener(
            'abort',
            () => {
              aborted.push(req.code);
              reject(signal.reason);
            },
            { once: true },
          );
        });
      }
      return ok(`t=${req.timeoutMs}`);
    },
    async close() {},
  };
  return { sb, seen, aborted, release: (code: string) => holds.get(code)?.() };
}

const servers: SandboxServer[] = [];
const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const s of sandboxes.splice(0)) await s.close();
});
async function start(sb: Sandbox, opts: Parameters<typeof createSandboxServer>[1] = {}) {
  const s = createSandboxServer(sb, opts);
  servers.push(s);
  const { url } = await s.listen();
  return { s, url };
}
const run = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}, localAddress?: string) =>
  postJson(url, '/run_code', { language: 'python', ...body }, headers, localAddress);

describe('sandbox-serve under hostile requests', () => {
  it('clamps run_timeout into [minTimeoutMs, maxTimeoutMs]: 0 and 1e-9 run with the minimum, huge with the maximum', async () => {
    const { sb, seen } = scripted();
    const { url } = await start(sb, { minTimeoutMs: 100, maxTimeoutMs: 60_000 });
    for (const t of [0, 1e-9, 0.0004, 1e300]) expect((await run(url, { code: 'x', run_timeout: t })).status).toBe(200);
    expect((await run(url, { code: 'x' })).status).toBe(200);
    expect((await run(url, { code: 'x', run_timeout: -1 })).status).toBe(422);
    expect(seen.map((r) => r.timeoutMs)).toEqual([100, 100, 100, 60_000, 10_000]);
    expect(clampRunTimeoutMs(2.5, 100, 300_000)).toBe(2500);
  });

  it('with the local sandbox: tiny run_timeouts report timeout and disconnects end calls, without rebuilding the worker', async () => {
    // Hazard: each such request cost a worker rebuild (~1 CPU-second): any client could keep the server busy rebuilding.
    const warnings: LocalSandboxWarning[] = [];
    const local = localSandbox({ workers: 1, preload: ['math'], onWarning: (w) => warnings.push(w) });
    sandboxes.push(local);
    const { s, url } = await start(local);
    for (const t of [0, 1e-9]) {
      const r = await run(url, { code: 'import time\ntime.sleep(5)', run_timeout: t });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text).run_result.agentrl.status).toBe('timeout');
    }
    for (let i = 0; i < 3; i++) {
      const ac = new AbortController();
      const p = fetch(`${url}/run_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ language: 'python', code: 'import time\ntime.sleep(30)', run_timeout: 60 }),
        signal: ac.signal,
      }).catch((e: unknown) => e);
      await until(() => s.stats().inFlight === 1);
      ac.abort();
      await p;
      expect(await until(() => s.stats().inFlight === 0)).toBe(true);
    }
    const after = await run(url, { code: 'print("after")' });
    expect(JSON.parse(after.text).run_result.stdout).toBe('after\n');
    expect(warnings.filter((w) => w.code === 'ZYGOTE_RECYCLED').map((w) => w.message)).toEqual([]);
  }, 60_000);

  it('refuses a browser cross-origin text/plain POST before any code runs, and DNS-rebound hosts', async () => {
    // Hazard: a web page could POST text/plain JSON to 127.0.0.1:8080/run_code and run code as the user.
    const { sb, seen } = scripted();
    const { url } = await start(sb);
    const port = new URL(url).port;
    const body = JSON.stringify({ language: 'python', code: 'print(1)' });
    const simple = await send(url, {
      path: '/run_code',
      body,
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(simple.status).toBe(403);
    expect(JSON.parse(simple.text)).toHaveProperty('detail');
    expect(
      (
        await send(url, {
          path: '/run_code',
          body,
          headers: { 'content-type': 'text/plain', host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
        })
      ).status,
    ).toBe(403);
    expect((await send(url, { path: '/run_code', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    expect(seen).toHaveLength(0);
  });

  it('requires the API key when set; remoteSandbox({ apiKey }) uses it; a non-loopback bind without a key is refused', async () => {
    const { sb } = scripted();
    const { url } = await start(sb, { apiKey: 'k' });
    expect((await run(url, { code: 'x' })).status).toBe(401);
    expect((await run(url, { code: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401);
    const good = remoteSandbox({ url, apiKey: 'k' });
    const bad = remoteSandbox({ url, retries: 0 });
    try {
      expect((await good.run({ code: 'x' })).stdout).toBe('t=10000');
      await expect(bad.run({ code: 'x' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    } finally {
      await good.close();
      await bad.close();
    }
    const open = createSandboxServer(sb);
    servers.push(open);
    await expect(open.listen({ host: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);
    expect(() => createSandboxServer(sb, { maxInFlight: 0 })).toThrow(ConfigError);
  });

  it('cuts a stalled body (408), refuses an oversized one (413), and keeps answering ping', async () => {
    const { sb, seen } = scripted();
    const { url } = await start(sb, { maxBodyBytes: 1024, limits: { requestTimeoutMs: 300 } });
    const sock = await rawConnect(url);
    const done = closed(sock);
    sock.write('POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"code":');
    expect(await done).toMatch(/^HTTP\/1\.1 408/);
    const big = await run(url, { code: 'x'.repeat(2000) });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.text)).toHaveProperty('detail');
    expect(JSON.parse((await send(url, { path: '/v1/ping' })).text)).toBe('pong');
    expect(seen).toHaveLength(0);
  });

  it('serves clients fairly: one client’s long calls do not queue ahead of another’s; ping answers while saturated', async () => {
    const { sb, seen, release } = scripted();
    const { s, url } = await start(sb, { maxInFlight: 1 });
    const a = [0, 1, 2].map((i) => run(url, { code: `hold a${i}` }, {}, '127.0.0.1'));
    await until(() => seen.length === 1 && s.stats().queued === 2);
    const b = run(url, { code: 'b' }, {}, '127.0.0.2');
    await until(() => s.stats().queued === 3);
    expect(JSON.parse((await send(url, { path: '/v1/ping' })).text)).toBe('pong');
    release('hold a0');
    expect((await b).status).toBe(200);
    expect(seen.map((r) => r.code).slice(0, 2)).toEqual(['hold a0', 'b']); // not a1, which came first
    release('hold a1');
    await until(() => seen.length === 4);
    release('hold a2');
    expect((await Promise.all(a)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('agentrl sandbox-serve refuses --host 0.0.0.0 without an API key (exit 2)', async () => {
    registerBuiltinCommands();
    const err: string[] = [];
    const saved = process.env['AGENTRL_API_KEY'];
    delete process.env['AGENTRL_API_KEY'];
    try {
      const code = await runCli(['sandbox-serve', '--backend', 'isolated-vm', '--host', '0.0.0.0', '--port', '0'], {
        stdout: () => {},
        stderr: (t: string) => err.push(t),
        signal: AbortSignal.abort(),
      });
      expect(code).toBe(2);
      expect(err.join('')).toMatch(/apiKey.*non-loopback/);
    } finally {
      if (saved !== undefined) process.env['AGENTRL_API_KEY'] = saved;
    }
  }, 30_000);
});
