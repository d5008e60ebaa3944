import { describe, expect, it } from 'vitest';
import { SandboxClosedError } from '../../../src/errors/index.js';
import { localSandbox, type LocalSandboxWarning } from '../../../adapters/local/index.js';
import { processesWithMarker } from 'agentrl/testing/conformance';
import { pathsToHide, probeBwrap } from '../../../adapters/local/isolation.js';

describe('localSandbox lifecycle', () => {
  it('warns and names the protections that are off when isolation is disabled', async () => {
    // Hazard: silently running model code with the trainer's privileges.
    const seen: LocalSandboxWarning[] = [];
    const sb = localSandbox({ mode: 'spawn', isolation: 'none', onWarning: (w) => seen.push(w) });
    try {
      expect(sb.isolation).toBe('none');
      expect(seen.map((w) => w.code)).toContain('ISOLATION_UNAVAILABLE');
      expect(seen[0]!.message).toMatch(/PID namespace/);
      const r = await sb.run({ code: 'import os\nprint(sorted(os.environ))' });
      expect(r.status).toBe('ok');
      expect(r.stdout).not.toMatch(/AGENTRL|npm_|VITEST/);
    } finally {
      await sb.close();
    }
  });

  it('rejects run() after close() with SandboxClosedError and kills its zygotes', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math'] });
    expect((await sb.run({ code: 'print(1)' })).stdout).toBe('1\n');
    await sb.close();
    await sb.close(); // idempotent
    await expect(sb.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxClosedError);
    expect(processesWithMarker(sb.instanceId)).toEqual([]);
  });

  it('rejects on abort, kills the running call and keeps serving', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math'] });
    try {
      const ac = new AbortController();
      const p = sb.run({ code: 'import time\ntime.sleep(30)', timeoutMs: 60_000 }, ac.signal);
      setTimeout(() => ac.abort(new Error('stop')), 300);
      await expect(p).rejects.toThrow('stop');
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
    } finally {
      await sb.close();
    }
  });

  it('reports cpuMs in fork-server mode', async () => {
    const sb = localSandbox({ workers: 1, preload: [] });
    try {
      const r = await sb.run({ code: 'x = sum(range(2_000_000))' });
      expect(r.status).toBe('ok');
      expect(r.cpuMs).toBeGreaterThan(0);
    } finally {
      await sb.close();
    }
  });
});

const bwrapOk = probeBwrap('/usr/bin/python3', pathsToHide('/usr/bin/python3', undefined).hide).ok;

describe.skipIf(!bwrapOk)('localSandbox privileges (bubblewrap)', () => {
  it.each(['fork-server', 'spawn'] as const)('%s: user code has no capabilities and cannot remount / read-write', async (mode) => {
    // Hazard: the zygote keeps CAP_SYS_ADMIN inside its user namespace; if a call inherited it,
    // the code could remount the read-only bind of / and write host files.
    const sb = localSandbox({ mode, workers: 1, preload: [], isolation: 'bwrap' });
    try {
      const r = await sb.run({
        code:
          'import ctypes, os, subprocess\n' +
          'caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "CapAmb"))]\n' +
          'libc = ctypes.CDLL(None, use_errno=True)\n' +
          'rc = libc.mount(b"none", b"/", None, 32 | 1 << 5, None)\n' + // MS_REMOUNT without MS_RDONLY: try to make / writable
          'child = subprocess.run(["/bin/sh", "-c", "grep CapEff /proc/self/status"], capture_output=True, text=True).stdout.split()\n' +
          'print(caps, rc, child[1] if len(child) > 1 else child)',
      });
      expect(r.status).toBe('ok');
      expect(r.stdout).toBe("['0000000000000000', '0000000000000000', '0000000000000000'] -1 0000000000000000\n");
    } finally {
      await sb.close();
    }
  });
});
