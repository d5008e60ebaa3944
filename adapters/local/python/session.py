
# ---- Sessions (appended to zygote.py by gen-sources.mjs) ------------------------------------------
# A session is a spare that, instead of one request, receives a "S" byte and then length-prefixed JSON
# frames on its private socket: one per call, each answered with a frame once the code has run. Its
# __main__, imports, threads and /tmp/work persist from call to call; everything else is as for a
# one-call process (same namespaces, seccomp, rlimits). The server keeps each session's handle, sends
# its calls and enforces each call's deadline and output cap; a timeout, a flood or a crash ends the
# session (the process is PID 1 of its own PID namespace, so killing it kills all it started).

_FRAME_MAX = 1 << 20  # a reply frame is tiny; anything larger is a broken (or forged) session
_SESSIONS = {}  # sid -> _Session (server side)
# The session loop's own references, taken before any model code runs: code that patches `json.dumps`,
# `struct.pack` or `os._exit` in the (shared) modules does not reach the runtime's replies.
_DUMPS, _LOADS, _PACK, _UNPACK, _EXIT = json.dumps, json.loads, struct.pack, struct.unpack, os._exit
_CLK_TCK = os.sysconf("SC_CLK_TCK")
# How often the server re-reads a running session's process-tree CPU time, s.
_TREE_CPU_EVERY_S = 0.2


def _frame(obj):
    data = _DUMPS(obj).encode()
    return _PACK("!I", len(data)) + data


def _stat(pid):
    """(ppid, state, cpu seconds incl. reaped children) of `pid` from /proc, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            raw = f.read()
    except OSError:
        return None
    rest = raw[raw.rfind(b")") + 2:].split()  # after "pid (comm) "; comm may hold spaces or parens
    # fields 3.. : state ppid ... utime(14) stime(15) cutime(16) cstime(17)
    return int(rest[1]), rest[0], sum(int(x) for x in rest[11:15]) / _CLK_TCK


def _tree(root):
    """{pid: (ppid, state, cpu)} of `root` and every process below it. A session is PID 1 of its own PID
    namespace, so processes that detach (setsid, double fork) are re-parented to it and stay in its tree."""
    procs = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                procs[int(name)] = st
    kids = {}
    for pid, (ppid, _, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in procs and pid not in out:
            out[pid] = procs[pid]
            todo.extend(kids.get(pid, ()))
    return out


def _tree_cpu(root):
    """CPU seconds used by the whole tree so far: every live (or zombie) process's own time plus what its
    reaped children used. Processes reaped by the session itself are in its cutime/cstime."""
    return sum(cpu for _, _, cpu in _tree(root).values())


def _signal_tree(root, sig):
    """Sends `sig` to every process of the tree. For SIGSTOP, repeats until a pass finds no process that
    was not stopped yet (one forked while the pass ran is caught by the next)."""
    done = set()
    for _ in range(8):
        fresh = [pid for pid, (_, state, _) in _tree(root).items() if pid not in done or (sig == signal.SIGSTOP and state not in (b"T", b"t", b"Z"))]
        if not fresh:
            return
        for pid in fresh:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
            done.add(pid)
        if sig != signal.SIGSTOP:
            return
        time.sleep(0.002)


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            return None
        buf += b
    return buf


def _recv_frame(sock):
    """One frame from `sock` (blocking, or bounded by its timeout); None on EOF."""
    head = _recv_exact(sock, 4)
    if head is None:
        return None
    n = _UNPACK("!I", head)[0]
    if n > _FRAME_MAX:
        raise ValueError("frame too large")
    body = _recv_exact(sock, n)
    if body is None:
        return None
    return _LOADS(body)


def _cpu_s():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _session_main(sock, inp):
    """The session process's loop (inside a spare, after its isolation). Never returns."""
    try:
        opened = _recv_frame(sock)
        if opened is None:
            os._exit(0)
        if not ISOLATE:
            work = opened["workdir"]
            os.makedirs(work, exist_ok=True)
            os.chdir(work)
            _set_env(work)
        _reseed()
        # CPU: each call may use `cpuS` more (soft limit); the whole session at most `sessionCpuS`
        # (hard limit, which cannot be raised again once the capabilities are gone).
        hard = int(_cpu_s() + opened["sessionCpuS"]) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        _close_except((sock.fileno(), inp))
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        sock.sendall(_frame({"ready": True, "cpuS": _cpu_s()}))
    except BaseException as e:
        try:
            os.write(2, ("agentrl sandbox session setup failed: %r\n" % (e,)).encode())
        finally:
            os._exit(125)
    n = 0
    while True:
        try:
            req = _recv_frame(sock)
        except BaseException:
            req = None
        if req is None:
            try:
                import atexit
                atexit._run_exitfuncs()
            except BaseException:
                pass
            os._exit(0)
        n += 1
        for fd in (1, 2):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, 0)
        _set_stdin(inp, req.get("stdin"))
        c0 = _cpu_s()
        soft = min(hard, int(c0 + req["cpuS"]) + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        status = _exec_user(req["code"], main, _make_stdio(), _call_name(n))
        try:
            sock.sendall(_frame({"exit": status, "cpuS": _cpu_s() - c0}))
        except BaseException:
            _EXIT(status)


class _Session:
    __slots__ = ("sp", "cpu_seen", "cpu_base", "cpu_max")

    def __init__(self, sp, cpu_seen, cpu_base, cpu_max):
        self.sp, self.cpu_seen = sp, cpu_seen
        # The tree's CPU seconds when the session opened, and the most its calls may add (sessionCpuS).
        self.cpu_base, self.cpu_max = cpu_base, cpu_max


def _await_frame(sp, deadline, watch_output, reader=None, session=None):
    """Waits for the session's next frame. Returns (kind, frame): kind is "frame", "exit" (the
    process ended), "timeout", "flood" (the output files together reached fileBytes), "bad" (a broken frame),
    "cancelled" (Node sent "cancel": the caller aborted) or "cpu" (the session's whole process tree
    passed sessionCpuS)."""
    poller = select.poll()
    poller.register(sp.pidfd, select.POLLIN)
    poller.register(sp.sock, select.POLLIN)
    if reader is not None:
        poller.register(reader.fd, select.POLLIN)
    next_cpu_check = time.monotonic() + _TREE_CPU_EVERY_S
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout", None
        if reader is not None and reader.pending():
            reader.readline()
            return "cancelled", None
        if session is not None and time.monotonic() >= next_cpu_check:
            next_cpu_check = time.monotonic() + _TREE_CPU_EVERY_S
            if _tree_cpu(sp.pid) - session.cpu_base > session.cpu_max:
                return "cpu", None
        ready = dict(poller.poll(min(left, 0.05) * 1000))
        if reader is not None and reader.fd in ready:
            reader.fill()
            continue
        if sp.sock.fileno() in ready:
            sp.sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                got = _recv_frame(sp.sock)
            except socket.timeout:
                return "timeout", None
            except (OSError, ValueError):
                return "bad", None
            finally:
                sp.sock.settimeout(None)
            if got is None:
                return "exit", None
            if not isinstance(got, dict):
                return "bad", None
            return "frame", got
        if sp.pidfd in ready:
            return "exit", None
        if watch_output and _flooded(sp):
            return "flood", None


def _kill_spare(sp):
    """SIGKILLs a session's process (and, without a PID namespace, its process group); returns its wait4."""
    try:
        os.kill(sp.pid, signal.SIGKILL)
    except OSError:
        pass
    if not ISOLATE:
        try:
            os.killpg(sp.pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        return os.wait4(sp.pid, 0)
    except ChildProcessError:
        return sp.pid, 0, None


def _session_open(srv, req):
    """Turns the full zygote's spare into a session. A spare that died while waiting is replaced
    once. Returns (reply, zygote to refill, or None when a spare was already asked for)."""
    z = srv.zygotes[b"h"]
    for attempt in (1, 2):
        while z.spare is None:
            srv._pump()
        sp, z.spare = z.spare, None
        try:
            sp.sock.sendall(b"S" + _frame({"workdir": req.get("workdir"), "sessionCpuS": req["sessionCpuS"]}))
            kind, got = _await_frame(sp, time.monotonic() + 30, False)
        except OSError:
            kind, got = "exit", None
        if kind == "frame" and got.get("ready"):
            _SESSIONS[req["sid"]] = _Session(sp, float(got.get("cpuS", 0)), _tree_cpu(sp.pid), float(req["sessionCpuS"]))
            # Idle until its first call: stopped, so it costs no CPU (and neither does anything it starts later).
            _signal_tree(sp.pid, signal.SIGSTOP)
            return {"id": req["id"], "opened": True, "pid": sp.pid}, z
        _kill_spare(sp)
        err = os.pread(sp.err, 2000, 0).decode("utf-8", "replace")
        sp.close()
        srv.refill(z)
    return {"id": req["id"], "opened": False, "error": "session did not start (%s): %s" % (kind, err)}, None


def _session_run(req, reader=None):
    """One call of a session: wakes its process tree (stopped between calls), sends the code, waits for
    the answer, the deadline, a flood, a cancel from Node or the tree's CPU limit, then stops the tree
    again (what the code left running — threads, children, detached processes — costs nothing while
    the session is idle). CPU is metered over the whole tree (`_tree_cpu`), not per process."""
    s = _SESSIONS.get(req["sid"])
    if s is None:
        return {"id": req["id"], "gone": True}
    sp = s.sp
    t0 = time.monotonic()
    cpu0 = _tree_cpu(sp.pid)
    try:
        _signal_tree(sp.pid, signal.SIGCONT)
        sp.sock.sendall(_frame({"code": req["code"], "cpuS": req["cpuS"], "stdin": req.get("stdin")}))
        kind, got = _await_frame(sp, t0 + req["timeoutMs"] / 1000.0, True, reader, s)
    except OSError:
        kind, got = "exit", None
    if kind == "frame" and not (isinstance(got.get("exit"), int) and isinstance(got.get("cpuS"), (int, float))):
        kind = "bad"
    if kind == "frame" and _tree_cpu(sp.pid) - s.cpu_base > s.cpu_max:
        kind = "cpu"
    exit_code = sig = None
    if kind == "frame":
        ended = False
        exit_code = got["exit"]
        cpu_s = max(0.0, _tree_cpu(sp.pid) - cpu0)
        _signal_tree(sp.pid, signal.SIGSTOP)
    else:
        ended = True
        cpu_s = max(0.0, _tree_cpu(sp.pid) - cpu0)
        _, wstatus, ru = _kill_spare(sp)
        # Only a death the runtime did not cause names its signal: a SIGKILL sent here (timeout, flood,
        # cancel, broken frame) must not read as the kernel's OOM kill.
        if kind == "exit" and os.WIFEXITED(wstatus):
            exit_code = os.WEXITSTATUS(wstatus)
        elif kind == "exit" and os.WIFSIGNALED(wstatus):
            sig = os.WTERMSIG(wstatus)
        elif kind == "cpu":
            sig = signal.SIGXCPU  # the session's CPU limit, reported as the CPU rlimit reports it
    wall_ms = (time.monotonic() - t0) * 1000.0
    cap = req["capBytes"]
    oh, ot, osz = _head_tail(sp.out, cap)
    eh, et, esz = _head_tail(sp.err, cap)
    if ended:
        sp.close()
        del _SESSIONS[req["sid"]]
    return {
        "id": req["id"],
        "setupOk": True,
        "exitCode": exit_code,
        "signal": sig,
        "timedOut": kind == "timeout",
        "outputKilled": kind == "flood",
        "wallMs": wall_ms,
        "cpuMs": cpu_s * 1000.0,
        "stdout": [base64.b64encode(oh).decode(), base64.b64encode(ot).decode(), osz],
        "stderr": [base64.b64encode(eh).decode(), base64.b64encode(et).decode(), esz],
        "ended": ended,
        "broken": kind == "bad",
        "cancelled": kind == "cancelled",
    }


_REAP = []  # pids of closed sessions, killed but not waited for yet


def _reap_closed():
    """Waits (without blocking) for killed sessions: tearing down a big address space takes a while,
    and the worker need not wait for it before answering."""
    for pid in list(_REAP):
        try:
            done = os.waitpid(pid, os.WNOHANG)[0] == pid
        except ChildProcessError:
            done = True
        if done:
            _REAP.remove(pid)


def _session_close(req):
    s = _SESSIONS.pop(req["sid"], None)
    if s is not None:
        sp = s.sp
        for kill in ((os.kill,) if ISOLATE else (os.kill, os.killpg)):
            try:
                kill(sp.pid, signal.SIGKILL)
            except OSError:
                pass
        sp.close()
        _REAP.append(sp.pid)
    _reap_closed()
    return {"id": req["id"], "closed": s is not None}


def _session_op(srv, req, reader=None):
    """Handles one session request; returns (reply, zygote to refill or None). `reader`: Node's input,
    watched during a call for "cancel"."""
    op = req["op"]
    _reap_closed()
    if op == "sopen":
        return _session_open(srv, req)
    if op == "srun":
        return _session_run(req, reader), None
    if op == "sclose":
        return _session_close(req), None
    raise ValueError("unknown op %r" % (op,))
