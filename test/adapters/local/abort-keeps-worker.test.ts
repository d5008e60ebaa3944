import { describe, expect, it } from 'vitest';
import { localSandbox, type LocalSandboxWarning } from '../../../adapters/local/index.js';

// Hazard (issue 14 item 5): an aborted call (a sandbox-serve client that disconnects) or a deadline
// shorter than the call's set-up (`run_timeout` 1e-9) used to kill and rebuild the whole worker,
// about a CPU-second each: any client could keep the server rebuilding.
describe('localSandbox keeps its worker', () => {
  it('after an aborted call: the call ends, run() rejects with the reason, no zygote is recycled', async () => {
    const warnings: LocalSandboxWarning[] = [];
    const sb = localSandbox({ workers: 1, preload: ['math'], onWarning: (w) => warnings.push(w) });
    try {
      expect((await sb.run({ code: 'print("warm")' })).stdout).toBe('warm\n');
      for (let i = 0; i < 3; i++) {
        const ac = new AbortController();
        const p = sb.run({ code: 'import time\ntime.sleep(30)', timeoutMs: 60_000 }, ac.signal);
        setTimeout(() => ac.abort(new Error(`stop ${i}`)), 200);
        await expect(p).rejects.toThrow(`stop ${i}`);
      }
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
      expect(warnings.filter((w) => w.code === 'ZYGOTE_RECYCLED').map((w) => w.message)).toEqual([]);
    } finally {
      await sb.close();
    }
  }, 60_000);

  it('after aborts that come right behind their request (both lines read together)', async () => {
    const warnings: LocalSandboxWarning[] = [];
    const sb = localSandbox({ workers: 1, preload: ['math'], onWarning: (w) => warnings.push(w) });
    try {
      expect((await sb.run({ code: 'print("warm")' })).stdout).toBe('warm\n');
      for (let i = 0; i < 6; i++) {
        const ac = new AbortController();
        const p = sb.run({ code: 'import time\ntime.sleep(30)', timeoutMs: 60_000 }, ac.signal);
        // 0, 1, 2 … ms after the call was handed over.
        await new Promise((r) => (i === 0 ? setImmediate(r) : setTimeout(r, i - 1)));
        ac.abort(new Error(`stop ${i}`));
        await expect(p).rejects.toThrow(`stop ${i}`);
      }
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
      expect(warnings.filter((w) => w.code === 'ZYGOTE_RECYCLED').map((w) => w.message)).toEqual([]);
    } finally {
      await sb.close();
    }
  }, 60_000);

  it('after deadlines of 1 ms: each call reports timeout, no zygote is recycled', async () => {
    const warnings: LocalSandboxWarning[] = [];
    const sb = localSandbox({ workers: 1, preload: ['math'], onWarning: (w) => warnings.push(w) });
    try {
      for (let i = 0; i < 4; i++) {
        const r = await sb.run({ code: 'import time\ntime.sleep(2)', timeoutMs: 1 });
        expect(r.status).toBe('timeout');
      }
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
      expect(warnings.filter((w) => w.code === 'ZYGOTE_RECYCLED').map((w) => w.message)).toEqual([]);
    } finally {
      await sb.close();
    }
  }, 60_000);
});
