# Docker sandbox runner (after common.py; see its header): the long-lived process inside each pooled
# container (PID 2 under the container's init), started as `python3 -I -c <source> <preload-json>
# <warmup-json>` so any image with a Python 3.8+ interpreter works; nothing is baked into the image.
# Its protocol (JSON lines on stdio) is described in adapters/docker/protocol.ts.
#
# Per call it wipes /tmp and /dev/shm, forks a child (fresh __main__, new session, own pipes, cwd
# /tmp/work) that runs the code through common.py's _exec_user, enforces the wall deadline itself, and
# after the child ends (or at the deadline / output flood) SIGKILLs every other process in the
# container with kill(-1) until none is left. The container is the isolation boundary (no network,
# read-only root, capabilities dropped, cgroup limits), so none of zygote.py's namespaces are needed.
import os, sys, json, base64, select, signal, time, resource, builtins, traceback, io, types, errno, socket

def _write_line(obj):
    data = (json.dumps(obj, separators=(',', ':')) + '\n').encode()
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]

def _oom_kills():
    for path in ('/sys/fs/cgroup/memory.events', '/sys/fs/cgroup/memory/memory.oom_control'):
        try:
            with open(path) as f:
                for line in f:
                    k, _, v = line.partition(' ')
                    if k == 'oom_kill':
                        return int(v)
        except (OSError, ValueError):
            pass
    return -1

def _wipe(root):
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        p = os.path.join(root, name)
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                for dp, dns, fns in os.walk(p, topdown=False):
                    for fn in fns:
                        try: os.unlink(os.path.join(dp, fn))
                        except OSError: pass
                    for dn in dns:
                        q = os.path.join(dp, dn)
                        try:
                            if os.path.islink(q): os.unlink(q)
                            else: os.rmdir(q)
                        except OSError: pass
                try: os.chmod(p, 0o700)
                except OSError: pass
                os.rmdir(p)
            else:
                os.unlink(p)
        except OSError:
            pass

def _others(me):
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid == 1 or pid == me:
            continue
        try:
            with open('/proc/%d/stat' % pid, 'rb') as f:
                state = f.read().rsplit(b')', 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b'Z':
            found.append(pid)
    return found

def _sweep(me):
    for _ in range(500):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        if not _others(me):
            return True
        time.sleep(0.002)
    return False

def _child(req, stdin_fd, out_w, err_w, cwd):
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        os.dup2(stdin_fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.closerange(3, 4096)
        os.chdir(cwd)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _reseed()
    except BaseException:
        os._exit(70)
    os._exit(_exec_user(req['code']))

_SESSION = None  # the live session interpreter of this container: {'pid', 'sock'}

def _session_child(sock, cwd):
    # The session interpreter: one __main__ for every call; per call it receives stdin, stdout,
    # stderr and the request (a memfd) over its socket, runs the code, answers {exit, cpu_ms}.
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        os.chdir(cwd)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        keep = sock.fileno()
        null = os.open('/dev/null', os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        if null > 2: os.close(null)
        os.closerange(3, keep)
        os.closerange(keep + 1, 4096)
        main = types.ModuleType('__main__')
        main.__dict__['__builtins__'] = builtins
        _reseed()
    except BaseException:
        os._exit(70)
    n = 0
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 4)
        except BaseException:
            os._exit(0)
        if not msg or len(fds) != 4:
            os._exit(0)
        for i in range(3):
            os.dup2(fds[i], i)
            os.close(fds[i])
        with os.fdopen(fds[3], 'rb') as f:
            req = json.loads(f.read())
        n += 1
        ru = resource.getrusage(resource.RUSAGE_SELF)
        c0 = ru.ru_utime + ru.ru_stime
        rc = _exec_user(req['code'], main, _make_stdio(), _call_name(n))
        null = os.open('/dev/null', os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        ru = resource.getrusage(resource.RUSAGE_SELF)
        try:
            sock.send(json.dumps({'exit': rc, 'cpu_ms': (ru.ru_utime + ru.ru_stime - c0) * 1000.0}).encode())
        except BaseException:
            os._exit(rc)

def _session_send(req, stdin_fd, out_w, err_w, cwd):
    # Starts the session interpreter if none is alive; hands it this call. Returns (pid, fresh).
    global _SESSION
    fresh = _SESSION is None
    if fresh:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            a.close()
            _session_child(b, cwd)
        b.close()
        _SESSION = {'pid': pid, 'sock': a}
    req_fd = os.memfd_create('req')
    os.write(req_fd, json.dumps({'code': req['code']}).encode())
    os.lseek(req_fd, 0, 0)
    try:
        socket.send_fds(_SESSION['sock'], [b'R'], [stdin_fd, out_w, err_w, req_fd])
    except OSError:
        pass  # it died; wait4 reports it
    os.close(req_fd)
    return _SESSION['pid'], fresh

def _session_end(me):
    # Kills the session interpreter and everything it started, and wipes its files.
    global _SESSION
    if _SESSION is not None:
        _SESSION['sock'].close()
        _SESSION = None
    _sweep(me)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0: break
        except ChildProcessError:
            break
    _wipe('/tmp')
    _wipe('/dev/shm')

def _run(req, me, wake_r):
    cap = int(req.get('max_output_bytes', 65536))
    kill_after = int(req.get('kill_after_bytes', cap * 4))
    timeout_s = max(0.001, float(req.get('timeout_ms', 10000)) / 1000.0)
    session = bool(req.get('session'))
    cwd = '/tmp/work'
    if not (session and _SESSION is not None):
        _wipe('/tmp')
        _wipe('/dev/shm')
        os.mkdir(cwd, 0o700)
    stdin_path = '/tmp/.stdin'
    with open(stdin_path, 'wb') as f:
        f.write((req.get('stdin') or '').encode('utf-8'))
    stdin_fd = os.open(stdin_path, os.O_RDONLY)
    os.unlink(stdin_path)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    oom0 = _oom_kills()
    t0 = time.monotonic()
    fresh = False
    ctl = None
    if session:
        pid, fresh = _session_send(req, stdin_fd, out_w, err_w, cwd)
        ctl = _SESSION['sock']
    else:
        pid = os.fork()
        if pid == 0:
            _child(req, stdin_fd, out_w, err_w, cwd)
    os.close(out_w); os.close(err_w); os.close(stdin_fd)
    ended = False
    deadline = t0 + timeout_s
    head_cap = cap // 2
    tail_cap = cap - head_cap
    bufs = {out_r: bytearray(), err_r: bytearray()}
    tails = {out_r: bytearray(), err_r: bytearray()}
    seen = {out_r: 0, err_r: 0}
    open_fds = [out_r, err_r]
    status = None
    exit_code = None
    sig = None
    cpu_ms = None
    child_done = False
    t_end = None
    while True:
        if not child_done:
            try:
                wpid, wst, ru = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                wpid, wst, ru = pid, 0, None
            if wpid == pid:
                child_done = True
                ended = session
                t_end = time.monotonic()
                if ru is not None:
                    cpu_ms = (ru.ru_utime + ru.ru_stime) * 1000.0
                if os.WIFSIGNALED(wst):
                    sig = signal.Signals(os.WTERMSIG(wst)).name
                else:
                    exit_code = os.WEXITSTATUS(wst)
                _sweep(me)
        if child_done and not open_fds:
            break
        now = time.monotonic()
        if status is None and now >= deadline:
            status = 'timeout'
            _sweep(me)
            continue
        wait = 0.05 if child_done else max(0.0, min(deadline - now, 0.25))
        try:
            ready, _, _ = select.select(open_fds + [wake_r] + ([ctl] if ctl is not None and not child_done else []), [], [], wait)
        except InterruptedError:
            continue
        if child_done and not ready and not (session and not ended):
            _sweep(me)
        if ctl is not None and ctl in ready:
            # The session interpreter finished the call: keep what its streams hold now, not the
            # output of anything it left running (that stays, as the session's own business).
            try:
                done = json.loads(ctl.recv(4096) or b'null')
            except (OSError, ValueError):
                done = None
            ready.remove(ctl)
            if isinstance(done, dict) and isinstance(done.get('exit'), int):
                child_done = True
                t_end = time.monotonic()
                exit_code = done['exit']
                cpu_ms = done.get('cpu_ms')
                for fd in open_fds:
                    os.set_blocking(fd, False)
                ready = list(open_fds)
            else:
                ctl = None  # closed or garbled: the process ends; wait4 reports it
        for fd in ready:
            if fd == wake_r:
                try: os.read(wake_r, 4096)
                except OSError: pass
                continue
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                data = b''  # a finished session call: its stream is drained
            except OSError:
                data = b''
            if not data:
                open_fds.remove(fd)
                os.close(fd)
                continue
            if session and child_done and not ended:
                ready.append(fd)  # keep draining this stream now
            seen[fd] += len(data)
            room = head_cap - len(bufs[fd])
            if room > 0:
                bufs[fd] += data[:room]
                data = data[room:]
            if data:
                t = tails[fd]
                t += data
                if len(t) > tail_cap:
                    del t[:len(t) - tail_cap]
            if status is None and seen[out_r] + seen[err_r] > kill_after:
                status = 'output_limit'
                _sweep(me)
    if t_end is None:
        t_end = time.monotonic()
    if session and (ended or status is not None):
        _session_end(me)
        ended = True
    if status is None:
        if sig is not None and _oom_kills() > oom0 >= 0:
            status = 'memory'
        elif exit_code == 0:
            status = 'ok'
        else:
            status = 'error'
    if status in ('timeout', 'output_limit') or (status == 'memory' and sig is not None):
        exit_code = None
        if sig is None: sig = 'SIGKILL'
    return {
        'id': req.get('id'), 'status': status, 'exit_code': exit_code, 'signal': sig,
        'stdout': base64.b64encode(bytes(bufs[out_r])).decode(), 'stderr': base64.b64encode(bytes(bufs[err_r])).decode(),
        'stdout_tail': base64.b64encode(bytes(tails[out_r])).decode(), 'stderr_tail': base64.b64encode(bytes(tails[err_r])).decode(),
        'stdout_bytes': seen[out_r], 'stderr_bytes': seen[err_r],
        'wall_ms': (t_end - t0) * 1000.0, 'cpu_ms': cpu_ms,
        'session_fresh': fresh, 'session_ended': ended,
    }

def main():
    me = os.getpid()
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except Exception:
        pass
    preload = json.loads(sys.argv[1]) if len(sys.argv) > 1 else []
    ok, failed = [], []
    for name in preload:
        try:
            __import__(name); ok.append(name)
        except BaseException:
            failed.append(name)
    warmup = json.loads(sys.argv[2]) if len(sys.argv) > 2 else ''
    if warmup:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            exec(compile(warmup, '<warmup>', 'exec'), {'__name__': '__warmup__', '__builtins__': builtins})
        except BaseException:
            pass
        finally:
            sys.stdout, sys.stderr = saved
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    signal.set_wakeup_fd(wake_w)
    stdin = sys.stdin.buffer
    _write_line({'ready': True, 'pid': me, 'preloaded': ok, 'failed': failed})
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if req.get('op') == 'session_close':
            _session_end(me)
            _write_line({'id': req.get('id'), 'status': 'ok', 'exit_code': 0, 'signal': None, 'stdout': '', 'stderr': '',
                         'stdout_bytes': 0, 'stderr_bytes': 0, 'wall_ms': 0.0, 'cpu_ms': None})
            continue
        try:
            res = _run(req, me, wake_r)
        except BaseException as e:
            _sweep(me)
            res = {'id': req.get('id'), 'status': 'sandbox_error', 'exit_code': None, 'signal': None,
                   'stdout': '', 'stderr': base64.b64encode(('runner: %r' % (e,)).encode()).decode(),
                   'stdout_bytes': 0, 'stderr_bytes': 0, 'wall_ms': 0.0, 'cpu_ms': None}
        _write_line(res)

main()
