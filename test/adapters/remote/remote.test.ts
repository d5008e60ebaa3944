import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxServer, remoteSandbox, type RemoteSandbox } from '../../../adapters/remote/index.js';
import { ConfigError, SandboxClosedError, SandboxTimeoutError, SandboxUnavailableError } from '../../../src/errors/index.js';
import { delay, fakeSandbox, json, okResult, rawServer, SF_SUCCESS } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function track<T extends { close(): Promise<void> }>(x: T): T {
  cleanups.push(() => x.close());
  return x;
}
const fast = { backoffBaseMs: 10, backoffCapMs: 20, healthCheckIntervalMs: 50 } as const;

describe('remoteSandbox against scripted servers', () => {
  it('speaks SandboxFusion: sends run_timeout in seconds and maps the answer', async () => {
    let seen: Record<string, unknown> = {};
    const srv = track(
      await rawServer((_req, body, res) => {
        seen = JSON.parse(body) as Record<string, unknown>;
        json(res, 200, SF_SUCCESS);
      }),
    );
    const sb = track(remoteSandbox({ url: srv.url, timeoutMs: 2500 }));
    const r = await sb.run({ code: 'print("Hello, world!")', stdin: 'in' });
    expect(r).toMatchObject({ status: 'ok', stdout: 'Hello, world!\n' });
    expect(seen).toMatchObject({ code: 'print("Hello, world!")', language: 'python', run_timeout: 2.5, stdin: 'in' });
    expect(seen).not.toHaveProperty('memory_limit_MB');
  });

  it('retries 503 and SandboxError, then succeeds; never retries a code failure', async () => {
    // Hazard: retrying `Failed` would run the model's code twice and double-count it.
    let n = 0;
    const srv = track(
      await rawServer((req, _body, res) => {
        // Health pings (every 50 ms once the 503 marks the server unhealthy) must not take the scripted answers.
        if (req.url !== '/run_code') return json(res, 200, {});
        n += 1;
        if (n === 1) return json(res, 503, { detail: 'busy' });
        if (n === 2) return json(res, 200, { ...SF_SUCCESS, status: 'SandboxError', run_result: null, message: 'boom' });
        return json(res, 200, SF_SUCCESS);
      }),
    );
    const sb = track(remoteSandbox({ url: srv.url, retries: 3, ...fast }));
    expect((await sb.run({ code: 'x' })).status).toBe('ok');
    expect(srv.hits()).toBe(3);
    expect(sb.stats().retries).toBe(2);

    const failing = track(
      await rawServer((_req, _body, res) =>
        json(res, 200, {
          ...SF_SUCCESS,
          status: 'Failed',
          run_result: { status: 'Finished', execution_time: 0.1, return_code: 1, stdout: '', stderr: 'Boom\n' },
        }),
      ),
    );
    const sb2 = track(remoteSandbox({ url: failing.url, retries: 3, ...fast }));
    expect((await sb2.run({ code: 'x' })).status).toBe('error');
    expect(failing.hits()).toBe(1);
  });

  it('returns sandbox_error when SandboxError persists, and throws on non-retryable HTTP statuses', async () => {
    const srv = track(await rawServer((_req, _body, res) => json(res, 200, { ...SF_SUCCESS, status: 'SandboxError', run_result: null, message: 'broken' })));
    const sb = track(remoteSandbox({ url: srv.url, retries: 2, ...fast }));
    expect(await sb.run({ code: 'x' })).toMatchObject({ status: 'sandbox_error', stderr: 'broken' });
    expect(srv.hits()).toBe(3);

    const bad = track(await rawServer((_req, _body, res) => json(res, 422, { detail: 'nope' })));
    const sb2 = track(remoteSandbox({ url: bad.url, retries: 2, ...fast }));
    await expect(sb2.run({ code: 'x' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(bad.hits()).toBe(1);
  });

  it('stops retrying when the shared retry budget is spent', async () => {
    const srv = track(await rawServer((_req, _body, res) => json(res, 502, {})));
    const sb = track(remoteSandbox({ url: srv.url, retries: 5, retryBudgetRatio: 0, ...fast }));
    for (let i = 0; i < 3; i++) await expect(sb.run({ code: 'x' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    // 10 initial tokens, no deposits: 3 first attempts + 10 retries in total.
    expect(srv.hits()).toBe(13);
    expect(sb.stats().budgetExhausted).toBeGreaterThan(0);
  });

  it('bounds a call that never gets an answer by timeoutMs + requestSlackMs', async () => {
    // Hazard: a hung server (SandboxFusion#67) must not hang the rollout.
    const srv = track(
      await rawServer(() => {
        /* never answers */
      }),
    );
    const sb = track(remoteSandbox({ url: srv.url, retries: 0, timeoutMs: 300, requestSlackMs: 200 }));
    const t0 = performance.now();
    await expect(sb.run({ code: 'x' })).rejects.toBeInstanceOf(SandboxTimeoutError);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('routes to the endpoint with the fewest outstanding calls', async () => {
    const counts = [0, 0];
    const servers = await Promise.all(
      [0, 1].map(async (i) =>
        track(
          await rawServer((_req, _body, res) => {
            counts[i]! += 1;
            setTimeout(() => json(res, 200, SF_SUCCESS), i === 0 ? 400 : 20);
          }),
        ),
      ),
    );
    const sb = track(remoteSandbox({ urls: servers.map((s) => s.url), concurrency: 8 }));
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      calls.push(sb.run({ code: 'x' }));
      await delay(40);
    }
    await Promise.all(calls);
    // The slow server keeps its calls outstanding longer, so it receives fewer of them.
    expect(counts[0]! + counts[1]!).toBe(12);
    expect(counts[0]!).toBeLessThanOrEqual(4);
  });
});

describe('remoteSandbox admission control', () => {
  it('fails a call that waits longer than queueTimeoutMs with SandboxTimeoutError', async () => {
    // Hazard: a queue wait must be told apart from a code timeout (a result with status 'timeout').
    const fake = fakeSandbox('fake', async (_req, signal) => {
      await delay(600, signal);
      return okResult('slow');
    });
    const srv = track(createSandboxServer(fake));
    const { url } = await srv.listen();
    const sb = track(remoteSandbox({ url, concurrency: 1, queueTimeoutMs: 150 }));
    const first = sb.run({ code: 'a' });
    await expect(sb.run({ code: 'b' })).rejects.toBeInstanceOf(SandboxTimeoutError);
    expect((await first).stdout).toBe('slow');
  });

  it('rejects at once when maxQueue calls are waiting', async () => {
    const fake = fakeSandbox('fake', async (_req, signal) => {
      await delay(300, signal);
      return okResult('x');
    });
    const srv = track(createSandboxServer(fake));
    const { url } = await srv.listen();
    const sb = track(remoteSandbox({ url, concurrency: 1, maxQueue: 1 }));
    const a = sb.run({ code: 'a' });
    const b = sb.run({ code: 'b' });
    await expect(sb.run({ code: 'c' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect((await Promise.all([a, b])).map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(fake.calls).toBe(2);
  });

  it('rejects with the abort reason, and with SandboxClosedError after close()', async () => {
    const fake = fakeSandbox('fake', async (_req, signal) => {
      await delay(5000, signal);
      return okResult('late');
    });
    const srv = track(createSandboxServer(fake));
    const { url } = await srv.listen();
    const sb = remoteSandbox({ url });
    const ac = new AbortController();
    const p = sb.run({ code: 'x' }, ac.signal);
    setTimeout(() => ac.abort(new Error('stop')), 100);
    await expect(p).rejects.toThrow('stop');
    const pending = expect(sb.run({ code: 'y' })).rejects.toBeInstanceOf(SandboxClosedError);
    await delay(50);
    await sb.close();
    await pending;
    await expect(sb.run({ code: 'z' })).rejects.toBeInstanceOf(SandboxClosedError);
  });

  it('validates options with dotted paths', () => {
    expect(() => remoteSandbox({} as never)).toThrow(ConfigError);
    expect(() => remoteSandbox({ url: 'ftp://x', concurrency: 0 })).toThrow(/remote\.url[\s\S]*remote\.concurrency/);
  });
});

describe('remoteSandbox when the server dies and returns', () => {
  it('fails in-flight and new calls with SandboxUnavailableError, then recovers on the same port', async () => {
    // Hazard: a crashed sandbox server must give typed errors (not hangs) and be picked up again.
    const fake = fakeSandbox('fake', async (req, signal) => {
      await delay(req.code === 'slow' ? 2000 : 5, signal);
      return okResult(req.code);
    });
    const first = createSandboxServer(fake);
    const { port, url } = await first.listen({ port: 0 });
    const sb: RemoteSandbox = track(remoteSandbox({ url, retries: 2, ...fast, connectTimeoutMs: 500 }));
    expect((await sb.run({ code: 'warm' })).stdout).toBe('warm');

    const inflight = sb.run({ code: 'slow' });
    await delay(150);
    const t0 = performance.now();
    await first.close();
    await expect(inflight).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(sb.run({ code: 'while-down' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(sb.stats().endpoints[0]?.healthy).toBe(false);

    const second = track(createSandboxServer(fake));
    await second.listen({ port });
    // The health check (GET /v1/ping) marks it healthy again; calls succeed.
    const deadline = Date.now() + 3000;
    while (!sb.stats().endpoints[0]?.healthy && Date.now() < deadline) await delay(25);
    expect(sb.stats().endpoints[0]?.healthy).toBe(true);
    expect((await sb.run({ code: 'back' })).stdout).toBe('back');
  }, 20_000);
});

describe('createSandboxServer', () => {
  it('answers ping, rejects bad bodies and foreign languages, and maps sandbox errors to 503', async () => {
    const fake = fakeSandbox('fake', async (req) => {
      if (req.code === 'down') throw new SandboxUnavailableError('backend down');
      return okResult(`t=${req.timeoutMs}`);
    });
    const srv = track(createSandboxServer(fake));
    const { url } = await srv.listen();
    const post = (body: unknown) => fetch(`${url}/run_code`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
    expect(await (await fetch(`${url}/v1/ping`)).json()).toBe('pong');
    expect((await post('not json')).status).toBe(422);
    expect((await post({ language: 'python' })).status).toBe(422);
    expect((await post({ code: 'x', language: 'cpp' })).status).toBe(422);
    expect((await post({ code: 'x', language: 'python', files: { 'a.txt': 'eA==' } })).status).toBe(422);
    expect((await post({ code: 'down', language: 'python' })).status).toBe(503);
    const ok = await post({ code: 'x', language: 'python', run_timeout: 1.5 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'Success', run_result: { stdout: 't=1500', agentrl: { status: 'ok' } } });
    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });

  it('aborts the sandbox call when the client disconnects', async () => {
    let aborted = false;
    const fake = fakeSandbox('fake', async (_req, signal) => {
      try {
        await delay(5000, signal);
      } catch (e) {
        aborted = true;
        throw e;
      }
      return okResult('late');
    });
    const srv = track(createSandboxServer(fake));
    const { url } = await srv.listen();
    const ac = new AbortController();
    const p = fetch(`${url}/run_code`, { method: 'POST', body: JSON.stringify({ code: 'x', language: 'python' }), signal: ac.signal });
    await delay(100);
    ac.abort();
    await expect(p).rejects.toThrow();
    const deadline = Date.now() + 2000;
    while (!aborted && Date.now() < deadline) await delay(20);
    expect(aborted).toBe(true);
  });
});
