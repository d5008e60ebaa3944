# Local sandbox runtime (after common.py; see its header). argv[1] = JSON config. Modes:
#   "server": one per worker slot. Reads one JSON request per line on fd 0 and answers on fd 1; forks
#             the zygotes (warm interpreters), which fork one isolated call process (a "spare") per call.
#   "once":   spawn mode, one call in this fresh interpreter.
import os, sys, json, ctypes, gc, select, signal, base64, time, resource, io, builtins, types, traceback, socket, struct, re

CFG = json.loads(sys.argv[1])
ISOLATE = bool(CFG.get("isolate"))
libc = ctypes.PyDLL(None, use_errno=True)
SYS_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220, "ppc64le": 120, "s390x": 120}.get(os.uname().machine, 56)
CLONE_PARENT, CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00008000, 0x00020000, 0x08000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 4, 22, 28, 38
SECCOMP_MODE_FILTER = 2
MAX_FD = 1 << 20
SECBITS_ALL_LOCKED = 0xEF  # NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE + their locks
_CAP_HDR = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
_CAP_ZERO = (ctypes.c_uint32 * 6)()


def _check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def _raw_fork(flags=0):
    # fork via clone(2) without CPython's after-fork hooks (they cost ~10 ms in a big zygote);
    # safe because the zygote is single-threaded and never holds a lock across this call.
    pid = libc.syscall(SYS_CLONE, ctypes.c_ulong(flags | signal.SIGCHLD), 0, 0, 0, 0)
    if pid < 0:
        e = ctypes.get_errno()
        raise OSError(e, "clone: " + os.strerror(e))
    return pid


def _drop_caps():
    # Lock "root gets no capabilities" for this process and every exec below it, then clear all
    # capability sets; no_new_privs also makes file capabilities and set-uid bits inert.
    _check(libc.prctl(PR_SET_SECUREBITS, SECBITS_ALL_LOCKED, 0, 0, 0), "securebits")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(libc.capset(_CAP_HDR, _CAP_ZERO), "capset")


_TMPFS_KB = max(1024, CFG.get("tmpfsKb", 1024))
_TMPFS_OPTS = ("size=%dk,mode=1777" % _TMPFS_KB).encode()
_HAS_DEV_SHM = os.path.isdir("/dev/shm")


# seccomp filter for model code (reference/sandboxes.md §5). The empty network namespace covers only
# IP; Unix sockets bound to paths (a Docker or database socket) and vsock (a VM's host side) are
# outside it, so socket() is allowed for AF_INET and AF_INET6 only (EACCES otherwise; socketpair, used
# by multiprocessing, stays allowed). Kernel keyrings (shared by every namespace of one uid), io_uring
# (which can open sockets without the socket syscall), clone3 (its flags cannot be inspected; libc
# falls back to clone) and syscalls of another ABI (x32, i386) fail with ENOSYS; clone and unshare
# with CLONE_NEWUSER fail with EPERM (no nested user namespaces: their capabilities are kernel attack
# surface, the same rule as Docker's default profile). inotify fails with ENOSYS: a watch on the shared,
# read-only Python installation (__pycache__) would show which modules other workers' calls import.
# memfd_create fails with ENOSYS when no memory cgroup bounds the call (CFG "denyMemfd"): its pages are
# not counted by RLIMIT_AS; the runtime makes its own memfds before the filter is installed.
_SECCOMP_ARCH = {
    # machine: (AUDIT_ARCH, {name: nr})
    "x86_64": (0xC000003E, dict(socket=41, clone=56, unshare=272, add_key=248, request_key=249, keyctl=250,
                                io_uring_setup=425, io_uring_enter=426, io_uring_register=427, clone3=435,
                                inotify_init=253, inotify_init1=294, memfd_create=319)),
    "aarch64": (0xC00000B7, dict(socket=198, clone=220, unshare=97, add_key=217, request_key=218, keyctl=219,
                                 io_uring_setup=425, io_uring_enter=426, io_uring_register=427, clone3=435,
                                 inotify_init1=26, memfd_create=279)),
}.get(os.uname().machine)
CLONE_NEWUSER = 0x10000000


def _seccomp_filter():
    """The filter as (code, jt, jf, k) tuples; jumps are written as labels and resolved here."""
    arch, nr = _SECCOMP_ARCH
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ERRNO = 0x00050000
    code = [
        (LD, None, None, 4), (JEQ, None, "enosys", arch),
        (LD, None, None, 0), (JGE, "enosys", None, 0x40000000),
    ]
    denied = ["add_key", "request_key", "keyctl", "io_uring_setup", "io_uring_enter", "io_uring_register", "clone3", "inotify_init", "inotify_init1"]
    if CFG.get("denyMemfd"):
        denied.append("memfd_create")
    code += [(JEQ, "enosys", None, nr[n]) for n in denied if n in nr]
    code += [(JEQ, "socket", None, nr["socket"]), (JEQ, "newns", None, nr["clone"]), (JEQ, "newns", None, nr["unshare"]), (RET, None, None, 0x7FFF0000)]
    code += ["socket", (LD, None, None, 16), (JEQ, "allow", None, 2), (JEQ, "allow", "eacces", 10)]
    code += ["newns", (LD, None, None, 16), (JSET, "eperm", "allow", CLONE_NEWUSER)]
    code += ["allow", (RET, None, None, 0x7FFF0000), "enosys", (RET, None, None, ERRNO | 38),
             "eacces", (RET, None, None, ERRNO | 13), "eperm", (RET, None, None, ERRNO | 1)]
    labels, insns = {}, []
    for c in code:
        if isinstance(c, str):
            labels[c] = len(insns)
        else:
            insns.append(c)
    rel = lambda target, pc: 0 if target is None else labels[target] - pc - 1
    return [(op, rel(jt, pc), rel(jf, pc), k) for pc, (op, jt, jf, k) in enumerate(insns)]


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def _install_seccomp():
    if _SECCOMP_ARCH is None:
        return False
    insns = _seccomp_filter()
    arr = (_SockFilter * len(insns))(*[_SockFilter(*i) for i in insns])
    prog = _SockFprog(len(insns), arr)
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp")
    return True


def _isolate_fs():
    # A new IPC namespace per call: System V shared memory, semaphores and message queues (and their
    # memory) die with the call instead of outliving it or passing data to the next one.
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare(mount, ipc)")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make-private")
    _check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, _TMPFS_OPTS), "mount /tmp")
    if _HAS_DEV_SHM:
        libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, _TMPFS_OPTS)
    _check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    # System V shared memory of this call's IPC namespace: at most the tmpfs size in all (its pages
    # are not counted by RLIMIT_AS once detached).
    for name, value in (("shmall", _TMPFS_KB // 4), ("shmmax", _TMPFS_KB * 1024)):
        try:
            with open("/proc/sys/kernel/" + name, "w") as f:
                f.write(str(value))
        except OSError:
            pass
    # The worker's namespaces are shared by its calls: their sysctls (net.*, kernel.shm*) must not be
    # writable from one call to the next.
    _check(libc.mount(b"/proc/sys", b"/proc/sys", None, MS_BIND, None), "bind /proc/sys")
    _check(libc.mount(None, b"/proc/sys", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "read-only /proc/sys")
    os.mkdir("/tmp/work")
    os.chdir("/tmp/work")


def _vm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1])
    return 0


def _set_static_limits():
    resource.setrlimit(resource.RLIMIT_FSIZE, (CFG["fileBytes"], CFG["fileBytes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (CFG["openFiles"], CFG["openFiles"]))
    if ISOLATE:
        # Counted per user namespace (so only inside bubblewrap's); host root is exempt, hence a root
        # trainer's sandbox runs as nobody.
        resource.setrlimit(resource.RLIMIT_NPROC, (CFG["maxProcesses"], CFG["maxProcesses"]))
    if CFG.get("memoryMb"):
        cap = (_vm_kb() * 1024) + CFG["memoryMb"] * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _set_cpu_limit(cpu_s):
    # RLIMIT_CPU counts from process start: add what this process has used so far.
    ru = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(cpu_s + ru.ru_utime + ru.ru_stime) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    return ru.ru_utime + ru.ru_stime


def _close_except(keep):
    low = 3
    for fd in sorted(keep):
        if fd > low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
    os.closerange(low, MAX_FD)


def _memfd(name, data=b""):
    fd = os.memfd_create(name, 0)
    if data:
        os.write(fd, data)
        os.lseek(fd, 0, 0)
    return fd


def _oom_first():
    """Under a memory cgroup the kernel's OOM killer then picks this call (or session), not the
    worker's server, zygotes or idle spare (their score stays 0): set once the spare is in use."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def _set_stdin(inp, data):
    """Points fd 0 at `data` (held in the memfd `inp`, rewritten) or at /dev/null."""
    if data:
        os.ftruncate(inp, 0)
        os.pwrite(inp, data.encode("utf-8", "replace"), 0)
        os.lseek(inp, 0, 0)
        os.dup2(inp, 0)
    else:
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)


def _read_all(read):
    """Everything until EOF from `read(n)` (os.read on a pipe, socket.recv)."""
    chunks = []
    while True:
        b = read(1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def _set_env(home):
    """The call's environment: the allowlist only, with HOME, TMPDIR and PWD at `home`."""
    os.environ.clear()
    os.environ.update(CFG["env"])
    os.environ.update({"HOME": home, "TMPDIR": home, "PWD": home})


def _spare(tag, hello_fd):
    """A call process, forked by a zygote with CLONE_PARENT (so the server is its parent). Isolates
    itself and drops privileges ahead of time, hands its private socket and output files to the
    server, waits for its one request, runs it and exits. Never returns."""
    announce = hello_fd  # -1 once the server holds this spare (its failures then show as setupOk = false)
    try:
        os.closerange(hello_fd + 1, MAX_FD)  # the zygote keeps hello at 3 and its own fds above it
        # Own session and process group: kill(0, sig) must reach only this call, not the server and
        # zygotes, which share the group (a PID namespace does not scope process-group signals).
        os.setsid()
        if ISOLATE:
            _isolate_fs()
            _drop_caps()
        else:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the server died: do not linger
        # Before the filter, which may deny memfd_create (see _seccomp_filter).
        out, err, inp = _memfd("stdout"), _memfd("stderr"), _memfd("stdin")
        _install_seccomp()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        hello = socket.socket(fileno=hello_fd)
        try:
            socket.send_fds(hello, [b"S" + tag], [theirs.fileno(), out, err])
        except OSError:
            os._exit(0)  # the server is gone
        hello.close()
        announce = -1
        theirs.close()
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)
        first = mine.recv(1)
        if not first:
            os._exit(0)  # spare discarded
        _oom_first()
        if first == b"S":  # a session: framed requests until EOF (session.py); never returns
            announce = -2
            _session_main(mine, inp)
        req = json.loads(first + _read_all(mine.recv))
        setup_cpu_s = _set_cpu_limit(req["cpuS"])
        _set_stdin(inp, req.get("stdin"))
        if not ISOLATE:  # with isolation the zygote's environment is already the call's
            work = req["workdir"]
            os.makedirs(work, exist_ok=True)
            os.chdir(work)
            _set_env(work)
        mine.sendall(("1%.6f" % setup_cpu_s).encode())  # setup CPU is not the call's
        mine.close()
        os.closerange(3, CFG["openFiles"] + 64)
        _reseed()
    except BaseException as e:
        if announce == -2:
            os._exit(125)  # a session's own failures are reported by its loop
        try:
            os.write(2, ("agentrl sandbox setup failed: %r\n" % (e,)).encode())
            if announce >= 0:
                os.write(announce, b"E" + tag + repr(e).encode()[:2000])
        finally:
            os._exit(125)
    os._exit(_exec_user(req["code"]))


def _zygote(tag, preload, ctl, hello_fd):
    """Imports `preload`, runs the warm-up, then forks one spare per byte read on `ctl`. Between
    forks it touches as little memory as it can: every page it writes while a spare is alive is
    copied (copy-on-write), and on a VM with shadow page tables each copy costs ~20 us."""
    failed = []
    for name in preload:
        try:
            __import__(name)
        except BaseException as e:
            failed.append("%s: %r" % (name, e))
    try:
        # Lazily built state (sympy caches, numpy dispatch tables) is created once here instead
        # of in every child, where each first write costs a copy-on-write page fault.
        exec(CFG.get("warmup") or "", {"__name__": "__agentrl_warmup__"})
    except BaseException as e:
        failed.append("warmup: %r" % (e,))
    for fn in ("unshare", "mount", "prctl", "capset", "setns", "syscall", "malloc_trim"):
        getattr(libc, fn)  # resolve symbols once, before forking
    import linecache, atexit  # noqa: F401  (used by _exec_user in every child)
    global _STDIO
    _STDIO = _make_stdio()
    self_ns = os.open("/proc/self/ns/pid", os.O_RDONLY) if ISOLATE else -1
    if ISOLATE:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no same-uid ptrace or /proc/<pid>/mem of the zygote
        _set_env("/tmp/work")
    gc.collect()
    gc.freeze()
    libc.malloc_trim(0)  # fewer resident anonymous pages = cheaper fork
    # Inherited by every call process (setting them there would cost each call ~3 ms of page faults);
    # only RLIMIT_CPU, which counts from process start, is set per call.
    _set_static_limits()
    os.write(hello_fd, b"R" + tag + json.dumps(failed).encode())
    read, unshare, setns, clone = os.read, libc.unshare, libc.setns, _raw_fork
    flags = CLONE_PARENT
    while True:
        if not read(ctl, 1):
            os._exit(0)
        try:
            if ISOLATE:
                _check(unshare(CLONE_NEWPID), "unshare(pid)")
                try:
                    # The call process is PID 1 of its own namespace: when it exits or is killed,
                    # the kernel kills every other process of the namespace.
                    if clone(flags) == 0:
                        _spare(tag, hello_fd)
                finally:
                    _check(setns(self_ns, CLONE_NEWPID), "setns(pid)")
            elif clone(flags) == 0:
                _spare(tag, hello_fd)
        except BaseException as e:
            os.write(hello_fd, b"E" + tag + repr(e).encode()[:2000])


def _flooded(sp):
    """True once stdout and stderr together hold `fileBytes`: the output flood that ends a call (the
    Docker runner's rule too, there with the request's kill_after_bytes)."""
    return os.fstat(sp.out).st_size + os.fstat(sp.err).st_size >= CFG["fileBytes"]


def _head_tail(fd, cap):
    size = os.fstat(fd).st_size
    if size <= cap:
        return os.pread(fd, size, 0), b"", size
    half = cap // 2
    return os.pread(fd, half, 0), os.pread(fd, cap - half, size - (cap - half)), size


class _Spare:
    """The server's handle on a spare: its pid and pidfd, private socket and output files."""

    __slots__ = ("pid", "pidfd", "sock", "out", "err")

    def close(self):
        self.sock.close()
        for fd in (self.pidfd, self.out, self.err):
            try:
                os.close(fd)
            except OSError:
                pass


class _ZygoteHandle:
    __slots__ = ("tag", "pid", "pidfd", "ctl", "spare", "ready")

    def __init__(self, tag, pid, ctl):
        self.tag, self.pid, self.ctl = tag, pid, ctl
        self.pidfd = os.pidfd_open(pid)
        self.spare = None
        self.ready = False


class _Server:
    """Per-worker supervisor: forks the zygotes (one with every `preload` module, optionally a light
    one), keeps one spare per zygote ready, routes each call, enforces its deadline and output cap,
    reaps it (it is the spare's parent) and answers Node."""

    def __init__(self):
        self.hello, hello_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        kinds = [(b"h", CFG["preload"])]
        light = CFG.get("lightPreload")
        if light is not None:
            kinds.append((b"l", light))
        self.zygotes = {}
        for tag, preload in kinds:
            ctl_r, ctl_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    # hello at fd 3 and ctl at 4; everything else (the protocol pipes, other zygotes'
                    # handles) closed, so that a call process needs one closerange above fd 3.
                    os.dup2(hello_w.fileno(), 100)
                    os.dup2(ctl_r, 101)
                    _close_except((100, 101))
                    os.dup2(100, 3)
                    os.dup2(101, 4)
                    os.closerange(5, MAX_FD)
                    _zygote(tag, preload, 4, 3)
                except BaseException:
                    traceback.print_exc()  # to bwrap's stderr, whose tail Node reports
                finally:
                    os._exit(70)
            os.close(ctl_r)
            self.zygotes[tag] = _ZygoteHandle(tag, pid, ctl_w)
        hello_w.close()
        heavy = {m.split(".")[0] for m in CFG["preload"]} - {m.split(".")[0] for m in (light or [])}
        self.heavy_re = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, sorted(heavy)))) if light is not None and heavy else None
        self.hello.setblocking(False)
        self.poller = select.poll()
        self.poller.register(self.hello, select.POLLIN)
        self.by_pidfd = {}
        for z in self.zygotes.values():
            self.poller.register(z.pidfd, select.POLLIN)
            self.by_pidfd[z.pidfd] = z

    def start(self):
        failed = []
        for z in self.zygotes.values():
            self.refill(z)  # its first spare, forked as soon as it is warm
        while not all(z.ready for z in self.zygotes.values()):
            for msg in self._pump():
                failed.extend(json.loads(msg[2:]))
        return failed

    def _pump(self):
        """Waits for hello messages; files spares; returns readiness messages; raises on a dead zygote or a failed spare."""
        got = []
        for fd, _ in self.poller.poll():
            if fd in self.by_pidfd:
                raise RuntimeError("zygote %s exited" % self.by_pidfd[fd].tag.decode())
        while True:
            try:
                msg, fds, _, _ = socket.recv_fds(self.hello, 4096, 3)  # non-blocking socket
            except BlockingIOError:
                return got
            kind, z = msg[:1], self.zygotes[msg[1:2]]
            if kind == b"R":
                z.ready = True
                got.append(msg)
            elif kind == b"S" and len(fds) == 3:
                sp = _Spare()
                sp.sock = socket.socket(fileno=fds[0])
                sp.out, sp.err = fds[1], fds[2]
                sp.pid = struct.unpack("3i", sp.sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
                sp.pidfd = os.pidfd_open(sp.pid)
                z.spare = sp
            else:
                for fd in fds:
                    os.close(fd)
                raise RuntimeError("spare setup failed: %s" % msg[2:].decode("utf-8", "replace"))

    def take(self, code):
        z = self.zygotes[b"l" if self.heavy_re is not None and not self.heavy_re.search(code) else b"h"]
        while z.spare is None:
            self._pump()
        sp, z.spare = z.spare, None
        return z, sp

    def refill(self, z):
        """Asks zygote `z` to fork its next spare (one byte on its control pipe)."""
        os.write(z.ctl, b"x")


def _dispatch(req, sp):
    """Hands the request to the waiting spare; EOF on its socket starts the call."""
    try:
        sp.sock.sendall(json.dumps(req).encode())
        sp.sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the spare died during setup; reported by _finish as setupOk = false


class _Lines:
    """Newline-delimited messages from Node on `fd`, with a buffer that can be inspected: a line read
    together with the one before it must not be missed while a call runs."""

    __slots__ = ("fd", "buf", "eof")

    def __init__(self, fd):
        self.fd, self.buf, self.eof = fd, bytearray(), False

    def pending(self):
        """True when a whole line (or end of input) is buffered."""
        return self.eof or self.buf.find(b"\n") >= 0

    def fill(self):
        """One read from the fd into the buffer (call when poll says it is readable)."""
        b = os.read(self.fd, 1 << 16)
        if b:
            self.buf += b
        else:
            self.eof = True

    def readline(self):
        """The next line, newline included; b"" at end of input (or the unterminated rest)."""
        start = 0
        while True:
            i = self.buf.find(b"\n", start)
            if i >= 0:
                line = bytes(self.buf[: i + 1])
                del self.buf[: i + 1]
                return line
            if self.eof:
                line = bytes(self.buf)
                self.buf.clear()
                return line
            start = len(self.buf)
            self.fill()


def _finish(req, sp, t0, reader):
    try:
        deadline = t0 + req["timeoutMs"] / 1000.0
        timed_out = flood = cancelled = False
        poller = select.poll()
        poller.register(sp.pidfd, select.POLLIN)
        # The only line Node sends while a call runs is "cancel" (its caller aborted): end the call
        # early, answer as usual, and keep this worker (a rebuild costs a CPU-second). It may already
        # sit in the reader's buffer, read together with the request.
        poller.register(reader.fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if reader.pending():
                reader.readline()
                cancelled = True
                break
            ready = poller.poll(min(left, 0.05) * 1000)
            if any(fd == sp.pidfd for fd, _ in ready):
                break
            if ready:
                reader.fill()
                continue
            if _flooded(sp):
                flood = True
                break
        if timed_out or flood or cancelled:
            os.kill(sp.pid, signal.SIGKILL)
        _, wstatus, ru = os.wait4(sp.pid, 0)
        wall_ms = (time.monotonic() - t0) * 1000.0
        if not ISOLATE:
            try:
                os.killpg(sp.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            ok = sp.sock.recv(64)
        except OSError:
            ok = b""
        setup_ok = ok[:1] == b"1"
        setup_cpu_s = float(ok[1:] or 0) if setup_ok else 0.0
        cap = req["capBytes"]
        oh, ot, osz = _head_tail(sp.out, cap)
        eh, et, esz = _head_tail(sp.err, cap)
        return {
            "id": req["id"],
            "setupOk": setup_ok,
            "exitCode": os.WEXITSTATUS(wstatus) if os.WIFEXITED(wstatus) else None,
            "signal": os.WTERMSIG(wstatus) if os.WIFSIGNALED(wstatus) else None,
            "timedOut": timed_out,
            "cancelled": cancelled,
            "outputKilled": flood,
            "wallMs": wall_ms,
            "cpuMs": max(0.0, ru.ru_utime + ru.ru_stime - setup_cpu_s) * 1000.0,
            "stdout": [base64.b64encode(oh).decode(), base64.b64encode(ot).decode(), osz],
            "stderr": [base64.b64encode(eh).decode(), base64.b64encode(et).decode(), esz],
        }
    finally:
        sp.close()


def server():
    reader = _Lines(os.dup(0))
    proto_out = os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    srv = _Server()
    failed = srv.start()
    os.write(proto_out, (json.dumps({"ready": True, "preloadFailed": failed}) + "\n").encode())
    while True:
        line = reader.readline()
        if not line:
            os._exit(0)
        if line.strip() == b"cancel":
            continue  # a cancel that crossed its call's answer
        req = json.loads(line)
        z = None
        try:
            op = req.get("op")
            if op is not None:
                res, z = _session_op(srv, req, reader)
            else:
                z, sp = srv.take(req["code"])
                _dispatch(req, sp)
                res = _finish(req, sp, time.monotonic(), reader)
        except BaseException as e:
            res = {"id": req.get("id"), "fatal": repr(e)}
        data = (json.dumps(res) + "\n").encode()
        while data:
            data = data[os.write(proto_out, data):]
        if "fatal" in res:
            os._exit(3)
        # The next call's process is forked now, after answering: forking while the call runs, on the
        # other CPU, measured twice the CPU per call on this 2-vCPU VM (concurrent address-space
        # set-up and tear-down contend), for no gain in throughput.
        if z is not None:
            srv.refill(z)
        if _REAP:
            _reap_closed()  # closed sessions (session.py)


def once():
    # spawn mode: stdio already point at the per-call files; code arrives on fd 3.
    code = _read_all(lambda n: os.read(3, n))
    os.close(3)
    os.makedirs(CFG["workdir"], exist_ok=True)
    os.chdir(CFG["workdir"])
    _set_static_limits()
    _set_cpu_limit(CFG["cpuS"])
    _install_seccomp()
    _set_env(CFG["workdir"])
    os._exit(_exec_user(code.decode("utf-8", "replace")))

