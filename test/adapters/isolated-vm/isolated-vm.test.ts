import { afterAll, describe, expect, it } from 'vitest';
import { isolatedVmSandbox } from '../../../adapters/isolated-vm/index.js';
import { ConfigError, SandboxClosedError } from '../../../src/errors/index.js';
import { processesWithMarker } from 'agentrl/testing/conformance';

const sb = isolatedVmSandbox({ workers: 1, timeoutMs: 2000, memoryMb: 32, maxOutputBytes: 4096, killAfterOutputBytes: 1 << 20 });
afterAll(async () => {
  await sb.close();
  // Hazard: worker processes outliving close().
  expect(processesWithMarker(`agentrl-ivm-${sb.instanceId}`)).toEqual([]);
});

/** Counts event-loop ticks of THIS process while `p` runs (proves the trainer is not blocked). */
async function ticksDuring<T>(p: Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const t = setInterval(() => (ticks += 1), 20);
  try {
    return { value: await p, ticks };
  } finally {
    clearInterval(t);
  }
}

describe('isolatedVmSandbox', () => {
  it('captures console output, exit codes and stack traces', async () => {
    const r = await sb.run({ code: 'console.log("a", 1, {b: [2]}, 3n); console.error("warn"); const x = 6 * 7; console.info(x)' });
    expect(r).toMatchObject({ status: 'ok', exitCode: 0, stdout: 'a 1 {"b":[2]} 3n\n42\n', stderr: 'warn\n', truncated: false });
    const e = await sb.run({ code: 'function f() { throw new TypeError("bad") }\nf()' });
    expect(e).toMatchObject({ status: 'error', exitCode: 1 });
    expect(e.stderr).toMatch(/^TypeError: bad\n\s+at f \(main\.js:1:/);
    const s = await sb.run({ code: 'let = = 1' });
    expect(s).toMatchObject({ status: 'error', exitCode: 1 });
    expect(s.stderr).toContain('SyntaxError');
  });

  it('supports top-level await and reports rejected promises as errors', async () => {
    expect((await sb.run({ code: 'const v = await Promise.resolve(5); console.log(v)' })).stdout).toBe('5\n');
    const r = await sb.run({ code: 'await Promise.reject(new RangeError("nope"))' });
    expect(r.status).toBe('error');
    expect(r.stderr).toContain('RangeError: nope');
  });

  it('exposes no Node capabilities', async () => {
    // Hazard: a leaked host object is a springboard to child_process (isolated-vm SECURITY notes).
    const r = await sb.run({ code: 'console.log([typeof process, typeof require, typeof fetch, typeof setTimeout, typeof __agentrl_write].join(","))' });
    expect(r.stdout).toBe('undefined,undefined,undefined,undefined,undefined\n');
  });

  it('times out a never-settling promise and an endless microtask loop while the host keeps serving', async () => {
    // §7.21: isolated-vm's `timeout` does not cover pending promises; the outer deadline must.
    for (const code of ['await new Promise(() => {})', 'for (;;) await null', '(async () => { for (;;) await null; })(); await new Promise(() => {})']) {
      const t0 = performance.now();
      const { value: r, ticks } = await ticksDuring(sb.run({ code, timeoutMs: 500 }));
      expect(r.status, code).toBe('timeout');
      expect(performance.now() - t0).toBeLessThan(500 + 2500);
      expect(ticks).toBeGreaterThan(5);
    }
    expect((await sb.run({ code: 'console.log("next")' })).stdout).toBe('next\n');
  }, 30_000);

  it('reports the isolate memory limit as memory and recovers', async () => {
    // §7.22: a heap blow-up must never take down the trainer.
    const r = await sb.run({ code: 'const a = []; for (;;) a.push(new Array(1e6).fill(1))', timeoutMs: 10_000 });
    expect(['memory', 'error']).toContain(r.status);
    const b = await sb.run({
      code: 'const b = new ArrayBuffer(200 * 2**20); const v = new Array(b.byteLength); for (let i = v.length; i--;) v[i] = 0;',
      timeoutMs: 10_000,
    });
    expect(['memory', 'error', 'timeout']).toContain(b.status);
    expect((await sb.run({ code: 'console.log("alive")' })).stdout).toBe('alive\n');
  }, 30_000);

  it('respawns a worker process that dies mid-call', async () => {
    const before = sb.workerPids();
    expect(before.length).toBe(1);
    const p = sb.run({ code: 'while (true) {}', timeoutMs: 5000 });
    setTimeout(() => process.kill(before[0]!, 'SIGKILL'), 200);
    const r = await p;
    expect(r.status).toBe('memory');
    expect(r.stderr).toContain('worker died');
    expect((await sb.run({ code: 'console.log("respawned")' })).stdout).toBe('respawned\n');
    expect(sb.workerPids()).not.toEqual(before);
  });

  it('caps output (head + tail) and stops a flood as output_limit', async () => {
    const big = await sb.run({ code: 'for (let i = 0; i < 2000; i++) console.log("line " + i)' });
    expect(big.status).toBe('ok');
    expect(big.truncated).toBe(true);
    expect(big.stdout.startsWith('line 0\n')).toBe(true);
    expect(big.stdout.endsWith('line 1999\n')).toBe(true);
    expect(big.stdout).toMatch(/\[\.\.\. \d+ bytes truncated \.\.\.\]/);
    const flood = await sb.run({ code: 'for (;;) { try { console.log("A".repeat(65536)) } catch {} }' });
    expect(flood.status).toBe('output_limit');
    expect(flood.stdout.length).toBeLessThan(8192);
  });

  it('keeps no state between calls', async () => {
    await sb.run({ code: 'globalThis.leak = 1; Array.prototype.evil = 1; Object.prototype.polluted = true;' });
    const r = await sb.run({ code: 'console.log(typeof leak, [].evil, ({}).polluted)' });
    expect(r.stdout).toBe('undefined undefined undefined\n');
  });

  it('validates options and rejects run() after close()', async () => {
    expect(() => isolatedVmSandbox({ memoryMb: 1 })).toThrow(ConfigError);
    expect(() => isolatedVmSandbox({ bogus: 1 } as never)).toThrow(/isolatedVm/);
    const other = isolatedVmSandbox({ workers: 1 });
    expect((await other.run({ code: 'console.log(1)' })).stdout).toBe('1\n');
    // Hazard: a call in flight or queued at close() must not hang or pretend to have run.
    const inFlight = expect(other.run({ code: 'while (true) {}', timeoutMs: 10_000 })).rejects.toBeInstanceOf(SandboxClosedError);
    const queued = expect(other.run({ code: 'console.log(2)' })).rejects.toBeInstanceOf(SandboxClosedError);
    await new Promise((r) => setTimeout(r, 200));
    await other.close();
    await Promise.all([inFlight, queued]);
    await expect(other.run({ code: 'console.log(1)' })).rejects.toBeInstanceOf(SandboxClosedError);
    expect(processesWithMarker(`agentrl-ivm-${other.instanceId}`)).toEqual([]);
  });
});
