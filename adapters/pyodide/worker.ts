/**
 * The Web Worker behind {@link pyodideSandbox}: loads Pyodide from the page's own origin, then cuts the worker off from
 * the network (model code reaches JavaScript globals through Pyodide's `js` module, so `fetch`, `XMLHttpRequest`,
 * `WebSocket`, `EventSource`, `importScripts` and nested workers are removed before any model code runs), and runs one
 * program at a time in a reset interpreter: fresh globals, stdin as given, modules the previous program imported
 * dropped from `sys.modules`, files it left under `/home` and `/tmp` deleted, the working directory and `os.environ`
 * restored. Build it as its own entry (it is the `workerUrl` of `pyodideSandbox`).
 */
import type { InitMessage, RunMessage, WorkerReply } from './protocol.js';

interface PyodideLike {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setStdout(options: { write: (buffer: Uint8Array) => number }): void;
  setStderr(options: { write: (buffer: Uint8Array) => number }): void;
  setStdin(options: { stdin: () => string | undefined; autoEOF?: boolean } | { error: true }): void;
  globals: { get(name: string): unknown };
  toPy(value: unknown): { destroy(): void };
}

/** The worker's global scope (typed here: the package compiles without the webworker library). */
const scope = globalThis as unknown as { postMessage(m: unknown): void; onmessage: ((e: { data: InitMessage | RunMessage }) => void) | null } & Record<string, unknown>;
const post = (m: WorkerReply) => scope.postMessage(m);

let py: PyodideLike | undefined;
let maxOutputBytes = 0;

/** Python run once after start-up: the state every program starts from. */
const SNAPSHOT = `
import sys, os
_agentrl_modules = set(sys.modules)
_agentrl_environ = dict(os.environ)
_agentrl_cwd = os.getcwd()
def _agentrl_tree():
    out = set()
    for root in ("/home", "/tmp"):
        for d, dirs, files in os.walk(root):
            out.add(d)
            out.update(os.path.join(d, f) for f in files)
    return out
_agentrl_files = _agentrl_tree()
`;

/** Python run after every program: back to the snapshot. */
const RESET = `
import sys, os, shutil
for _m in [m for m in sys.modules if m not in _agentrl_modules]:
    del sys.modules[_m]
os.chdir(_agentrl_cwd)
os.environ.clear()
os.environ.update(_agentrl_environ)
for _p in sorted(_agentrl_tree() - _agentrl_files, key=len, reverse=True):
    try:
        shutil.rmtree(_p) if os.path.isdir(_p) and not os.path.islink(_p) else os.remove(_p)
    except OSError:
        pass
`;

/** Runs `code` as `__main__` in fresh globals; the exit code as CPython's would be (SystemExit honoured). */
const RUN = `
import sys, traceback
def _agentrl_run(code):
    g = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(code, "<string>", "exec"), g)
        return 0
    except SystemExit as e:
        c = e.code
        if c is None:
            return 0
        if isinstance(c, int):
            return c & 0xFF
        print(c, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

function cutNetwork(): void {
  for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'Worker', 'SharedWorker', 'WebTransport', 'indexedDB', 'caches']) {
    try {
      Object.defineProperty(scope, name, { value: undefined, configurable: false, writable: false });
    } catch {
      // already absent in this browser
    }
  }
}

class Capture {
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  overflow = false;
  constructor(readonly onOverflow: () => void) {}
  write = (buffer: Uint8Array): number => {
    if (this.overflow) return buffer.length;
    const room = maxOutputBytes - this.#bytes;
    this.#chunks.push(buffer.slice(0, Math.max(0, room)));
    this.#bytes += Math.min(buffer.length, Math.max(0, room));
    if (buffer.length > room) {
      this.overflow = true;
      this.onOverflow();
    }
    return buffer.length;
  };
  text(): string {
    const all = new Uint8Array(this.#bytes);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    return new TextDecoder().decode(all);
  }
}

async function init(m: InitMessage): Promise<void> {
  maxOutputBytes = m.maxOutputBytes;
  const mod = (await import(/* @vite-ignore */ `${m.indexURL}pyodide.mjs`)) as { loadPyodide(o: { indexURL: string }): Promise<PyodideLike> };
  py = await mod.loadPyodide({ indexURL: m.indexURL });
  py.runPython(SNAPSHOT);
  py.runPython(RUN);
  cutNetwork();
}

function run(m: RunMessage): void {
  const p = py!;
  let overflowed = false;
  const stdout = new Capture(() => overflow());
  const stderr = new Capture(() => overflow());
  function overflow(): void {
    if (overflowed) return;
    overflowed = true;
    // The page terminates this worker on this message; the program is not trusted to stop by itself.
    post({ kind: 'output-limit', id: m.id, stdout: stdout.text(), stderr: stderr.text() });
  }
  p.setStdout({ write: stdout.write });
  p.setStderr({ write: stderr.write });
  let stdinLeft: string | undefined = m.stdin;
  p.setStdin({ stdin: () => { const s = stdinLeft; stdinLeft = undefined; return s === '' ? undefined : s; }, autoEOF: true });
  const fn = p.globals.get('_agentrl_run') as ((code: string) => number) & { destroy?: () => void };
  const exitCode = fn(m.code);
  fn.destroy?.();
  p.runPython(RESET);
  if (!overflowed) post({ kind: 'result', id: m.id, exitCode, stdout: stdout.text(), stderr: stderr.text() });
}

scope.onmessage = (e: { data: InitMessage | RunMessage }) => {
  const m = e.data;
  if (m.kind === 'init') {
    init(m).then(
      () => post({ kind: 'ready' }),
      (err: unknown) => post({ kind: 'init-failed', message: String(err) }),
    );
  } else run(m);
};
