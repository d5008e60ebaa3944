import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSandbox, type LocalSandbox } from '../../../adapters/local/index.js';
import { pathsToHide, probeBwrap } from '../../../adapters/local/isolation.js';
import { openMemoryCgroups } from '../../../adapters/local/cgroup.js';

// Issue 14 §6-7: memory outside RLIMIT_AS (memfds, shared memory, forks) and inotify on shared mounts.
const probe = probeBwrap('/usr/bin/python3', pathsToHide('/usr/bin/python3', undefined).hide);

/** 40 memfds of 16 MiB each (640 MiB), none mapped, so none counted by RLIMIT_AS. */
const MEMFD_BOMB =
  'import os\nfds = []\nfor i in range(40):\n    fd = os.memfd_create("x")\n    os.write(fd, b"a" * (16 << 20))\n    fds.append(fd)\nprint("held", len(fds) * 16, "MiB")';
/** System V segments of 32 MiB, each attached, filled and detached (pages stay, no longer in the address space). */
const SYSV_BOMB = [
  'import ctypes',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'libc.shmat.restype = ctypes.c_void_p',
  'held = 0',
  'for i in range(20):',
  '    sid = libc.shmget(0, 32 << 20, 0o1600)',
  '    if sid < 0: raise OSError(ctypes.get_errno(), "shmget")',
  '    addr = libc.shmat(sid, None, 0)',
  '    ctypes.memset(addr, 1, 32 << 20)',
  '    libc.shmdt(ctypes.c_void_p(addr))',
  '    held += 32',
  'print("held", held, "MiB")',
].join('\n');
/**
 * Forks that each touch 100 MiB (each under its own RLIMIT_AS). The parent waits until every fork has either touched
 * all its memory (it says so on a pipe) or died, however slow the machine, then prints how many the kernel killed.
 */
const FORK_BOMB = [
  'import os, time, signal, select',
  'r, w = os.pipe()',
  'kids = []',
  'for i in range(8):',
  '    pid = os.fork()',
  '    if pid == 0:',
  '        os.close(r)',
  '        b = bytearray(100 << 20)',
  '        for j in range(0, len(b), 4096): b[j] = 1',
  '        os.write(w, bytes([i]))',
  '        time.sleep(60)',
  '        os._exit(0)',
  '    kids.append(pid)',
  'os.close(w)',
  'touched, dead, killed = set(), set(), 0',
  'deadline = time.time() + 45',
  'while len(touched | dead) < len(kids) and time.time() < deadline:',
  '    ready, _, _ = select.select([r], [], [], 0.05)',
  '    if ready: touched.update(kids[i] for i in os.read(r, 64))',
  '    for pid in kids:',
  '        if pid in dead: continue',
  '        p, st = os.waitpid(pid, os.WNOHANG)',
  '        if p == pid:',
  '            dead.add(pid)',
  '            if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL: killed += 1',
  'print("killed", killed, "settled", len(touched | dead), "alive_touched", len(touched - dead))',
].join('\n');

describe.skipIf(!probe.ok).each(['auto', 'rlimit'] as const)('local sandbox memory as a whole (memoryMb 256, memoryControl %s)', (memoryControl) => {
  let sb: LocalSandbox;

  beforeAll(() => {
    sb = localSandbox({ workers: 1, timeoutMs: 20_000, memoryMb: 256, memoryControl, onWarning: () => {} });
  });
  afterAll(async () => {
    await sb.close();
  });

  const bounded = (status: string, stderr: string): void => {
    // With a cgroup the kernel kills the call (`memory`); without one the allocation fails (`error`).
    if (sb.memoryControl === 'rlimit') expect([status, stderr]).toEqual(['error', expect.stringMatching(/OSError|PermissionError|MemoryError/)]);
    // With a cgroup the kernel kills the call (`memory`), unless a per-call bound refuses the allocation first (`error`:
    // System V segments past the namespace's shmall give ENOSPC), or, on a loaded host, reclaim holds the call past its
    // deadline (`timeout`). Each is bounded; what must never happen is the call holding the memory (checked above).
    else {
      expect(['memory', 'timeout', 'error'], `status ${status}, stderr ${stderr.slice(-300)}`).toContain(status);
      if (status === 'error') expect(stderr).toMatch(/OSError|PermissionError|MemoryError/);
    }
  };

  it('a call cannot hold memfds beyond its limit', async () => {
    const r = await sb.run({ code: MEMFD_BOMB });
    expect(r.stdout).not.toContain('held');
    bounded(r.status, r.stderr);
  }, 60_000);

  it('a call cannot hold System V shared memory beyond its limit', async () => {
    const r = await sb.run({ code: SYSV_BOMB });
    expect(r.stdout).not.toContain('held');
    bounded(r.status, r.stderr);
  }, 60_000);

  it('forks of a call share its limit (cgroup only)', async (t) => {
    if (sb.memoryControl === 'rlimit') t.skip();
    // Its own sandbox with a long deadline: at its limit the cgroup reclaims page cache (Python's own code pages) and a
    // loaded machine can take tens of seconds to settle eight forks; a quiet one takes about two.
    const own = localSandbox({ workers: 1, timeoutMs: 60_000, memoryMb: 256, memoryControl, onWarning: () => {} });
    const r = await own.run({ code: FORK_BOMB }).finally(() => own.close());
    // 8 × 100 MiB against 256 MiB: the kernel kills forks (or the call itself) until it fits, so at most two forks
    // that touched all their memory are alive at any time; once three have settled (touched or died), one has died.
    if (r.status === 'memory') return;
    const [, killed, settled, aliveTouched] = (/killed (\d+) settled (\d+) alive_touched (\d+)/.exec(r.stdout) ?? []).map(Number);
    expect(aliveTouched, r.stdout).toBeLessThanOrEqual(2);
    expect(settled, r.stdout).toBeGreaterThanOrEqual(3);
    expect(killed, r.stdout).toBeGreaterThanOrEqual(settled! - 2);
  }, 120_000);

  it('a session cannot hold memfds beyond its limit, and the next call starts afresh', async () => {
    const s = await sb.openSession();
    try {
      const first = await s.run({ code: 'x = 1' });
      expect(first.stderr).toBe('');
      expect(first.status).toBe('ok');
      const r = await s.run({ code: MEMFD_BOMB });
      expect(r.stdout).not.toContain('held');
      bounded(r.status, r.stderr);
      const after = await s.run({ code: 'print("alive")' });
      expect(after.status).toBe('ok');
    } finally {
      await s.close();
    }
  }, 60_000);

  it('after the sandbox closes, its memory cgroups are gone', async () => {
    const other = localSandbox({ workers: 1, memoryMb: 128, onWarning: () => {} });
    const s = await other.openSession();
    await s.run({ code: 'print(1)' });
    const group = (other as unknown as { memoryControl: string }).memoryControl;
    await other.close();
    if (group === 'rlimit') return;
    const cg = openMemoryCgroups(other.instanceId);
    // Creating it again succeeds only if close() removed it; remove our probe right away.
    expect('reason' in cg).toBe(false);
    if (!('reason' in cg)) {
      expect(existsSync(cg.group)).toBe(true);
      cg.removeAll();
    }
  }, 60_000);
});

describe.skipIf(!probe.ok)('local sandbox: no inotify on the shared, read-only installation', () => {
  let sb: LocalSandbox;
  beforeAll(() => {
    sb = localSandbox({ workers: 1, onWarning: () => {} });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('inotify_init and inotify_init1 fail (ENOSYS), in calls and in sessions', async () => {
    // Hazard: a watch on the Python installation's __pycache__ shows what other workers' calls import.
    const code =
      'import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.inotify_init1(0), ctypes.get_errno(), libc.inotify_init(), ctypes.get_errno())';
    const r = await sb.run({ code });
    expect(r.stdout).toBe('-1 38 -1 38\n');
    const s = await sb.openSession();
    try {
      expect((await s.run({ code })).stdout).toBe('-1 38 -1 38\n');
    } finally {
      await s.close();
    }
  });
});
