import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSandbox, type LocalSandbox } from '../../../adapters/local/index.js';
import { SandboxClosedError, SessionsNotSupportedError } from '../../../src/errors/index.js';

describe('localSandbox sessions', () => {
  let sb: LocalSandbox;
  beforeAll(() => {
    sb = localSandbox({ workers: 1, timeoutMs: 10_000, onWarning: () => {} });
  });
  afterAll(() => sb.close());

  it('are offered in fork-server mode only', async () => {
    expect(sb.supportsSessions).toBe(true);
    const spawn = localSandbox({ mode: 'spawn', workers: 1, onWarning: () => {} });
    expect(spawn.supportsSessions).toBe(false);
    await expect(spawn.openSession()).rejects.toBeInstanceOf(SessionsNotSupportedError);
    await spawn.close();
  });

  it('an aborted call ends the session without taking the worker down', async () => {
    const s = await sb.openSession();
    await s.run({ code: 'x = 1' });
    const ctl = new AbortController();
    const p = s.run({ code: 'import time\ntime.sleep(30)' }, ctl.signal);
    setTimeout(() => ctl.abort(new Error('rollout cancelled')), 300);
    await expect(p).rejects.toThrow('rollout cancelled');
    const next = await s.run({ code: 'print(globals().get("x"))', timeoutMs: 20_000 });
    expect(next).toMatchObject({ status: 'ok', stdout: 'None\n', sessionReset: true });
    expect((await sb.run({ code: 'print(2)' })).stdout).toBe('2\n');
    await s.close();
    await expect(s.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxClosedError);
  }, 60_000);

  it('a call aborted while it waits for the worker never runs, and its session goes on', async () => {
    const [a, b] = [await sb.openSession(), await sb.openSession()];
    await b.run({ code: 'b = 1' });
    const busy = a.run({ code: 'import time\ntime.sleep(1.5)' }); // holds the only worker
    const ctl = new AbortController();
    const queued = b.run({ code: 'y = 99' }, ctl.signal);
    setTimeout(() => ctl.abort(new Error('cancelled')), 200);
    await expect(queued).rejects.toThrow('cancelled');
    await busy;
    const r = await b.run({ code: 'print(globals().get("y"), b)' });
    expect(r.stdout).toBe('None 1\n');
    expect(r.sessionReset ?? false).toBe(false);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);

  it('one-off calls and other sessions run between a session’s calls on the same worker', async () => {
    const [a, b] = [await sb.openSession(), await sb.openSession()];
    await Promise.all([a.run({ code: 'v = "a"' }), b.run({ code: 'v = "b"' }), sb.run({ code: 'v = "x"' })]);
    const [ra, rb, rx] = await Promise.all([a.run({ code: 'print(v)' }), b.run({ code: 'print(v)' }), sb.run({ code: 'print(globals().get("v"))' })]);
    expect([ra.stdout, rb.stdout, rx.stdout]).toEqual(['a\n', 'b\n', 'None\n']);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});
