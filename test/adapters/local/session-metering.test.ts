import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSandbox, type LocalSandbox } from '../../../adapters/local/index.js';

// Issue 25 §7: a session is metered as a whole. Hazards: processes a call leaves running (threads, children in
// their own process sessions) slowing everyone between calls; sessionCpuSeconds applying per process (so
// maxProcesses × it in all); an aborted call running on to its own timeout; a patched json module read as `memory`.

describe('local sandbox sessions are metered as a whole', () => {
  let sb: LocalSandbox;
  beforeAll(() => {
    sb = localSandbox({ workers: 1, timeoutMs: 10_000, sessionCpuSeconds: 3, onWarning: () => {} });
  });
  afterAll(() => sb.close());

  // Each leftover spins and records the longest gap it observed between two of its own loop turns in gap.txt
  // (the session's working directory): stopped between calls, it sees a gap as long as the pause; left running,
  // only scheduler-sized ones. Measured from inside the session, so other load on the machine does not matter.
  const SPIN =
    'def spin(path):\n    import time\n    prev, gap = time.monotonic(), 0.0\n    while True:\n        now = time.monotonic()\n        if now - prev > gap:\n            gap = now - prev\n            open(path, "w").write(str(gap))\n        prev = now\n';
  // The call returns once the leftover is in its loop (on a loaded machine a fresh child may not have run yet).
  const STARTED = 'import os, time\nwhile not os.path.exists("gap.txt"): time.sleep(0.01)\nprint("started")';
  const LEFT_BEHIND: Record<string, string> = {
    thread: `${SPIN}import threading\nthreading.Thread(target=spin, args=("gap.txt",), daemon=True).start()\n${STARTED}`,
    'child in its own session': `${SPIN}import os\nif os.fork() == 0:\n    os.setsid()\n    spin("gap.txt")\n${STARTED}`,
    'double-forked grandchild': `${SPIN}import os\nif os.fork() == 0:\n    if os.fork() == 0:\n        os.setsid()\n        spin("gap.txt")\n    os._exit(0)\nos.wait()\n${STARTED}`,
  };

  for (const [name, code] of Object.entries(LEFT_BEHIND)) {
    it(`a ${name} left running by a call is stopped between calls (costs nothing) and runs again in the next call`, async () => {
      const s = await sb.openSession();
      expect((await s.run({ code })).stdout).toBe('started\n');
      await new Promise((r) => setTimeout(r, 1_500));
      // The next call wakes the tree; the leftover then notes the pause it was stopped for.
      const r = await s.run({ code: 'import time\ntime.sleep(0.5)\nprint(open("gap.txt").read())' });
      expect(r.status).toBe('ok');
      expect(Number(r.stdout)).toBeGreaterThan(1.2);
      await s.close();
    }, 60_000);
  }

  it('sessionCpuSeconds bounds the whole process tree, not each process', async () => {
    // 4 processes, each spinning until it alone has used 1.5 CPU-s: each stays under a per-process limit of 3,
    // 6 CPU-s in all. Metered as a whole, the session is stopped once the tree has used 3.
    for (const n of [4, 2]) {
      const s = await sb.openSession();
      const code = `import os, time\nkids = []\nfor _ in range(${n - 1}):\n    pid = os.fork()\n    if pid == 0:\n        break\n    kids.append(pid)\nwhile time.process_time() < ${(6 / n).toFixed(2)}: pass\nif len(kids) < ${n - 1}: os._exit(0)\nfor k in kids: os.waitpid(k, 0)\nprint("done")`;
      const r = await s.run({ code, timeoutMs: 60_000 });
      expect(r).toMatchObject({ status: 'timeout', signal: 'SIGXCPU' });
      expect(r.cpuMs ?? 0).toBeGreaterThan(2_500);
      expect(r.cpuMs ?? 0).toBeLessThan(4_500);
      const next = await s.run({ code: 'print(1)' });
      expect(next).toMatchObject({ status: 'ok', sessionReset: true });
      await s.close();
    }
  }, 120_000);

  it('abort() and a trajectory timeout end a running session call within 1 s; the session is reset', async () => {
    for (const code of ['import time\ntime.sleep(30)', 'while True: pass', 'import os\nos.fork()\nwhile True: pass']) {
      const s = await sb.openSession();
      await s.run({ code: 'x = 1' });
      const ctl = new AbortController();
      const p = s.run({ code, timeoutMs: 20_000 }, ctl.signal);
      await new Promise((r) => setTimeout(r, 300));
      const t0 = performance.now();
      ctl.abort(new Error('aborted'));
      await expect(p).rejects.toThrow('aborted');
      // close() waits for the session's queue: it returns only once the call has really ended.
      await s.close();
      expect(performance.now() - t0).toBeLessThan(1_000);
    }
    const s = await sb.openSession();
    await s.run({ code: 'x = 1' });
    const p = s.run({ code: 'while True: pass', timeoutMs: 20_000 }, AbortSignal.timeout(400));
    await expect(p).rejects.toThrow();
    const t0 = performance.now();
    const next = await s.run({ code: 'print(globals().get("x"))' });
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(next).toMatchObject({ status: 'ok', stdout: 'None\n', sessionReset: true });
    await s.close();
  }, 60_000);

  it('status names the real cause: patching json / struct is not memory', async () => {
    const cases: [string, string][] = [
      ['import json\njson.dumps = lambda *a, **k: "x" * 5_000_000\nprint("patched")', 'ok'],
      ['import json\ndef boom(*a, **k): raise RuntimeError("no json")\njson.dumps = boom\njson.loads = boom\nprint("patched")', 'ok'],
      ['import struct\nstruct.pack = lambda *a: b"\\xff\\xff\\xff\\xff"\nprint("patched")', 'ok'],
    ];
    for (const [code, status] of cases) {
      const s = await sb.openSession();
      const r = await s.run({ code });
      expect(r.status).toBe(status);
      expect(r.stdout).toBe('patched\n');
      // And the session still works after it.
      expect((await s.run({ code: 'print(2)' })).stdout).toBe('2\n');
      await s.close();
    }
    // A program that writes garbage on the runtime's own socket is an `error` of the program, never `memory`.
    const s = await sb.openSession();
    const r = await s.run({
      code: 'import os\nfor fd in range(3, 40):\n    try: os.write(fd, b"\\x00\\x00\\x00\\x05nojson")\n    except OSError: pass\nimport time\ntime.sleep(0.2)',
    });
    expect(r.status).not.toBe('memory');
    await s.close();
  }, 60_000);
});
