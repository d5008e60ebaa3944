import { describe, expect, it } from 'vitest';
import { registerBuiltinCommands, runCli } from '../../apps/cli/index.js';
import { call } from '../serve/raw-client.js';

function io(signal = new AbortController().signal) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), signal } };
}

describe('agentrl serve (CLI)', () => {
  it('exits 2 on usage errors, naming the problem', async () => {
    registerBuiltinCommands();
    const cases: [string[], RegExp][] = [
      [['serve', '--frobnicate'], /frobnicate/],
      [['serve', '--port', 'eighty'], /--port expects an integer/],
      [['serve', '--port', '70000'], /--port expects an integer/],
      [['serve', '--port', ''], /--port expects an integer in \[0, 65535\], got ''/], // blank is not port 0
      [['serve', '--checkpoint', 'test/cli/no-such-checkpoint'], /checkpoint/],
      [['serve', '--host', '0.0.0.0'], /apiKey/],
      [['serve', '--session-timeout-s', '0'], /--session-timeout-s expects/],
      [['serve', '--max-num-samples', '0'], /--max-num-samples expects a positive integer/],
      [['serve', '--max-models', '2.5'], /--max-models expects a positive integer/],
      [['serve', '--max-out-of-order-mib=-1'], /--max-out-of-order-mib expects a positive number/],
      [['serve', '--future-ttl-s', 'soon'], /--future-ttl-s expects/],
      [['serve', '--engine-thread', 'gpu'], /--engine-thread expects worker or main/],
      [['serve', '--token-ttl-s', '60'], /need --api-key/],
      [['serve', '--no-tokens'], /need --api-key/],
      [['serve', '--api-key', 'k', '--token-ttl-s', '0'], /--token-ttl-s expects a positive/],
      [['serve', '--api-key', 'k', '--token-ttl-s', '1.5'], /--token-ttl-s expects whole seconds/],
      [['serve', '--api-key', 'k', '--token-ttl-s', '60', '--no-tokens'], /exclude each other/],
      [['serve', '--zstd-bodies=yes'], /zstd-bodies/],
      [['serve', '--max-state-mib', '0'], /--max-state-mib expects a positive number/],
      [['serve', '--max-state-mib-per-session', '1e12'], /--max-state-mib-per-session expects a positive number/],
    ];
    for (const [args, message] of cases) {
      const c = io();
      expect(await runCli(args, c.io), args.join(' ')).toBe(2);
      expect(c.err.join(''), args.join(' ')).toMatch(message);
    }
    const h = io();
    expect(await runCli(['serve', '--help'], h.io)).toBe(0);
    expect(h.out.join('')).toContain('--checkpoint');
  });

  it('prints "listening on http://HOST:PORT" once it answers, and stops on the signal', async () => {
    registerBuiltinCommands();
    const ac = new AbortController();
    const c = io(ac.signal);
    const done = runCli(['serve', '--port', '0', '--api-key', 'tml-k'], c.io);
    const deadline = Date.now() + 20_000;
    while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(c.out.join('')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (http:\/\/\S+)/.exec(c.out.join(''))?.[1];
    expect(url, c.out.join('') + c.err.join('')).toBeDefined();
    expect((await call(url!, 'healthz', undefined, { 'x-api-key': 'tml-k' })).body).toEqual({ status: 'ok' });
    expect((await call(url!, 'healthz')).status).toBe(401);
    ac.abort();
    expect(await done).toBe(0);
    expect(c.out.join('')).toContain('stopped');
  });

  it('applies limit flags, and repeated --api-key flags are separate principals', async () => {
    registerBuiltinCommands();
    const ac = new AbortController();
    const c = io(ac.signal);
    const done = runCli(
      [
        'serve',
        '--port',
        '0',
        '--api-key',
        'k1',
        '--api-key',
        'k2',
        '--max-num-samples',
        '2',
        '--max-sample-tokens',
        '3',
        '--max-state-mib-per-session',
        '20000',
        '--max-state-mib',
        '40000.5',
      ],
      c.io,
    );
    const deadline = Date.now() + 20_000;
    while (!/listening on/.test(c.out.join('')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (http:\/\/\S+)/.exec(c.out.join(''))![1]!;
    const k1 = { 'x-api-key': 'k1' };
    const k2 = { 'x-api-key': 'k2' };
    const ask = (n: number, t: number, h: Record<string, string>) =>
      call(url, 'asample', { base_model: 'agentrl/local', num_samples: n, prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: { max_tokens: t } }, h);
    expect((await ask(3, 1, k1)).status).toBe(400);
    expect((await ask(1, 4, k1)).status).toBe(400);
    const ok = await ask(2, 3, k1);
    expect(ok.status).toBe(200);
    expect((await call(url, 'retrieve_future', { request_id: ok.body.request_id }, k2)).status).toBe(404);
    const s = await call(url, 'create_session', {}, k1);
    expect((await call(url, 'session_heartbeat', { session_id: s.body.session_id }, k2)).status).toBe(404);
    expect((await call(url, 'session_heartbeat', { session_id: s.body.session_id }, k1)).status).toBe(200);
    // Access tokens are on by default with keys: a token of k1 is k1.
    expect((await call(url, 'client/config', {}, k1)).body).toMatchObject({ pjwt_auth_enabled: true, proto_compress_fwdbwd: false });
    const jwt = (await call(url, 'auth/token', {}, k1)).body.jwt as string;
    expect((await call(url, 'session_heartbeat', { session_id: s.body.session_id }, { 'x-api-key': jwt })).status).toBe(200);
    ac.abort();
    expect(await done).toBe(0);
  });
});
