# agentrl Python sandbox runner: the one source of the Python that runs model code for the local and the
# Docker sandbox. gen-sources.mjs concatenates these files into sources.ts (tests check the two match):
#   local  (PYTHON_RUNTIME_SOURCE)   = common.py + zygote.py + session.py + zygote_main.py
#   docker (CONTAINER_RUNNER_SOURCE) = common.py + container.py
# It lives in the local adapter's folder (the reference Python sandbox) and the Docker adapter imports the
# generated source from here, as it imports local's DEFAULT_WARMUP: every adapters/ folder stays one adapter.
# This file is what both run for every call: the model code's process-level semantics (fresh __main__,
# sys.argv, text streams, exit status, traceback, atexit, non-daemon threads, final flush) and the
# fresh random streams of a process forked from a warm parent.
import os, sys, io, builtins, types, traceback


def _make_stdio():
    """Text streams on fds 0-2, whatever files those fds point to when they are used."""
    return (
        io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace"),
        io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace"),
        io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True),
    )


_STDIO = None  # made once in a zygote, unused (so still empty) in each call process forked from it


def _reseed():
    """Fresh random streams in a forked call process: without it every call forked from one warm
    parent would replay the parent's `numpy.random` state (same "random" numbers each call), and its
    `random` state too where the fork skips CPython's at-fork hooks (zygote.py's _raw_fork)."""
    for name in ("random", "numpy.random"):
        mod = sys.modules.get(name)
        if mod is not None:
            try:
                mod.seed()
            except BaseException:
                pass


def _call_name(n):
    """The file name of a session's `n`-th call in tracebacks (a one-shot call is call 1)."""
    return "<sandbox>" if n == 1 else "<sandbox %d>" % n


def _exec_user(code, main=None, stdio=None, name="<sandbox>"):
    """Runs model code in `main` (a fresh __main__ when None) and returns its exit status, as CPython's
    `python -c` would: SystemExit's code (& 0xFF; a non-int is printed and gives 1), 1 and a traceback
    (runner frame hidden, source lines shown) for any other exception, 120 when the final flush of
    stdout/stderr fails. A one-shot call (`stdio` None) then waits for its non-daemon threads and runs
    atexit, as an interpreter does at exit; a session passes its own `main` and `stdio` (fresh text
    streams per call), and runs neither per call."""
    status = 0
    inp, out, err = stdio or _STDIO or _make_stdio()
    sys.stdout, sys.stderr = out, err
    sys.__stdout__, sys.__stderr__ = out, err
    sys.stdin = sys.__stdin__ = inp
    sys.argv = ["<sandbox>"]
    if main is None:
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    import linecache
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        exec(compile(code, name, "exec"), main.__dict__)
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code & 0xFF
        else:
            try:
                print(e.code, file=sys.stderr)
            except BaseException:
                pass
            status = 1
    except BaseException:
        try:
            etype, exc, tb = sys.exc_info()
            traceback.print_exception(etype, exc, tb.tb_next if tb is not None else None)  # hide the runner frame
        except BaseException:
            pass
        status = 1
    if stdio is None:
        try:
            threading = sys.modules.get("threading")
            if threading is not None:
                threading._shutdown()  # join non-daemon threads, as the interpreter does before atexit
        except BaseException:
            pass
        try:
            import atexit
            atexit._run_exitfuncs()
        except BaseException:
            pass
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            status = status or 120  # CPython's exit status when flushing the standard streams fails
    return status
