import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSandbox, type LocalSandbox } from '../../../adapters/local/index.js';
import { pathsToHide, probeBwrap } from '../../../adapters/local/isolation.js';

// Faults found by a red-team pass over the local sandbox (each was reproduced before the fix).
const probe = probeBwrap('/usr/bin/python3', pathsToHide('/usr/bin/python3', undefined).hide);

describe.skipIf(!probe.ok)('local sandbox hardening (bubblewrap)', () => {
  let sb: LocalSandbox;
  let server: Server;
  let sockDir: string;
  let sockPath: string;
  const received: string[] = [];

  beforeAll(async () => {
    sb = localSandbox({ workers: 1, timeoutMs: 10_000, onWarning: () => {} });
    // A host Unix socket the sandbox can see and, by file permissions, could connect to.
    sockDir = mkdtempSync('/var/tmp/agentrl-sock-');
    chmodSync(sockDir, 0o755);
    sockPath = join(sockDir, 's.sock');
    server = createServer((c) => c.on('data', (d) => received.push(d.toString())));
    await new Promise<void>((res) => server.listen(sockPath, res));
    chmodSync(sockPath, 0o777);
  });

  afterAll(async () => {
    await sb.close();
    await new Promise<void>((res) => server.close(() => res()));
    rmSync(sockDir, { recursive: true, force: true });
  });

  it('cannot connect to a host Unix socket (the network namespace does not cover them)', async () => {
    // Hazard: /run/docker.sock reachable from model code = root on the host.
    const r = await sb.run({ code: `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(${JSON.stringify(sockPath)})\ns.sendall(b"leak")` });
    expect(r.status).toBe('error');
    expect(r.stderr).toMatch(/PermissionError/);
    expect(received).toEqual([]);
    const listing = await sb.run({ code: 'import os\nprint(os.listdir("/run"))' });
    expect(listing.stdout).toBe('[]\n');
    // socketpair (multiprocessing's pipes) still works
    expect((await sb.run({ code: 'import socket\na, b = socket.socketpair()\na.send(b"x")\nprint(b.recv(1))' })).stdout).toBe("b'x'\n");
  });

  it('sees only the system directories and Python: not the trainer’s other files, wherever it was started', async () => {
    // Hazard: model code reading a dataset's answer key outside the trainer's working directory.
    const r = await sb.run({
      code: `import json, os\nprint(json.dumps([os.path.exists(${JSON.stringify(sockDir)}), os.path.exists("/var"), os.listdir("/")]))`,
    });
    const [sock, varDir, top] = JSON.parse(r.stdout) as [boolean, boolean, string[]];
    expect([sock, varDir]).toEqual([false, false]);
    const allowed = new Set(['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'usr', 'etc', 'sys', 'dev', 'proc', 'run', 'tmp']);
    expect(top.filter((d) => !allowed.has(d))).toEqual([]);
    expect(top).toContain('usr');
  });

  it('keeps nothing from one call to the next in System V IPC, /dev, hidden paths or sysctls', async () => {
    const w = await sb.run({
      code: [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'shm = libc.shmget(0x1234, 1 << 20, 0o1666)',
        'print("shm", shm >= 0)',
        'for p in ("/dev/persist", "/root/persist", "/home/persist"):',
        '    try:',
        '        open(p, "w").write("x"); print("wrote", p)',
        '    except OSError as e:',
        '        print("denied", p, e.errno)',
        'try:',
        '    open("/proc/sys/kernel/shm_rmid_forced", "w").write("1"); print("wrote sysctl")',
        'except OSError as e:',
        '    print("denied sysctl", e.errno)',
      ].join('\n'),
    });
    expect(w.stdout).toContain('shm True');
    expect(w.stdout).not.toMatch(/wrote/);
    const r = await sb.run({ code: 'print(open("/proc/sysvipc/shm").read().strip().count("\\n"))' });
    expect(r.stdout).toBe('0\n'); // header line only: the segment died with its call's IPC namespace
  });

  it('opens IP sockets only: vsock (the VM host side), netlink and the rest are refused; io_uring too', async () => {
    const r = await sb.run({
      code: [
        'import socket, ctypes',
        'for fam in (socket.AF_INET, socket.AF_INET6, socket.AF_VSOCK, socket.AF_NETLINK, socket.AF_PACKET):',
        '    try:',
        '        socket.socket(fam, socket.SOCK_DGRAM if fam == socket.AF_NETLINK else socket.SOCK_STREAM).close(); print(fam, "ok")',
        '    except OSError as e:',
        '        print(fam, e.errno)',
        'l = ctypes.CDLL(None, use_errno=True)',
        'print("io_uring", l.syscall(425, 1, 0), ctypes.get_errno())',
      ].join('\n'),
    });
    expect(r.stdout).toBe('2 ok\n10 ok\n40 13\n16 13\n17 13\nio_uring -1 38\n'); // AF_INET, AF_INET6, AF_VSOCK, AF_NETLINK, AF_PACKET
  });

  it('kill(0) from model code ends only its own call, not the worker', async () => {
    // Hazard: a call that kills its process group turns its own failure into sandbox_error and respawns the worker.
    const warnings: string[] = [];
    const own = localSandbox({ workers: 1, onWarning: (w) => warnings.push(w.code) });
    try {
      // The call is PID 1 of its namespace, so a signal it sends itself (group 0 is now only itself) is ignored.
      const r = await own.run({ code: 'import os, signal\nos.kill(0, signal.SIGKILL)\nos.kill(0, signal.SIGSTOP)\nprint("still here")' });
      expect(r.status).toBe('ok');
      expect(r.stdout).toBe('still here\n');
      expect((await own.run({ code: 'print("alive")' })).stdout).toBe('alive\n');
      expect(warnings).not.toContain('ZYGOTE_RECYCLED');
    } finally {
      await own.close();
    }
  });

  it('cannot create nested user namespaces, while threads, subprocesses and fork still work', async () => {
    // Hazard: capabilities inside a fresh user namespace open kernel attack surface (Docker's default profile refuses it too).
    const r = await sb.run({
      code: [
        'import ctypes, os, subprocess, threading',
        'l = ctypes.CDLL(None, use_errno=True)',
        'print("unshare", l.unshare(0x10000000), ctypes.get_errno())',
        'out = []',
        't = threading.Thread(target=lambda: out.append("thread")); t.start(); t.join()',
        'print(out[0], subprocess.run(["/bin/echo", "child"], capture_output=True, text=True).stdout.strip())',
        'pid = os.fork()',
        'if pid == 0:',
        '    os._exit(3)',
        'print("fork", os.waitpid(pid, 0)[1] >> 8)',
      ].join('\n'),
    });
    expect(r.stdout).toBe('unshare -1 1\nthread child\nfork 3\n');
  });

  it('cannot use kernel keyrings (shared by every namespace of one uid)', async () => {
    const r = await sb.run({
      code: 'import ctypes\nl = ctypes.CDLL(None, use_errno=True)\nprint(l.syscall(248, b"user", b"k", b"v", 1, -4), ctypes.get_errno())',
    });
    expect(r.stdout).toBe('-1 38\n');
  });

  it('takes a lone surrogate in stdin as a replacement character, not as a sandbox failure', async () => {
    const r = await sb.run({ code: 'import sys\nprint(repr(sys.stdin.read()))', stdin: 'a\ud800b' });
    expect(r.status).toBe('ok');
    expect(r.stdout).toBe("'a?b'\n");
  });

  it.skipIf(!probe.ok || !('runAs' in probe && probe.runAs))('runs a root trainer’s sandbox as nobody: no root-only files, a process limit', async () => {
    const shadow = await sb.run({ code: 'open("/etc/shadow").read()' });
    expect(shadow.stderr).toMatch(/PermissionError/);
    // A low process limit keeps the bomb short on a loaded machine (forking up to the default 256 can outlast a deadline).
    const small = localSandbox({ workers: 1, timeoutMs: 60_000, maxProcesses: 32, onWarning: () => {} });
    try {
      const bomb = await small.run({
        code: 'import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print("stopped", n < 32, e.errno)',
      });
      expect(bomb.stdout).toBe('stopped True 11\n');
      expect((await small.run({ code: 'print("alive")' })).stdout).toBe('alive\n');
    } finally {
      await small.close();
    }
    expect((await sb.run({ code: 'print("alive")' })).stdout).toBe('alive\n');
  });
});
