/**
 * The Web Worker behind {@link pyodideSandbox}: loads Pyodide from the page's own origin, then cuts the worker off from
 * the network (model code reaches JavaScript globals through Pyodide's `js` module, so `fetch`, `XMLHttpRequest`,
 * `WebSocket`, `EventSource`, `importScripts` and nested workers are removed before any model code runs), and runs one
 * program at a time in a reset interpreter: fresh globals, stdin as given, `sys.modules` and every loaded module's
 * namespace as after start-up, files the previous program left under `/home` and `/tmp` deleted, the working directory
 * and `os.environ` restored (see SNAPSHOT). Build it as its own entry (it is the `workerUrl` of `pyodideSandbox`).
 */
import type { InitMessage, RunMessage, WorkerReply } from './protocol.js';

interface PyodideLike {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setStdout(options: { write: (buffer: Uint8Array) => number }): void;
  setStderr(options: { write: (buffer: Uint8Array) => number }): void;
  setStdin(options: { read: (buffer: Uint8Array) => number }): void;
  globals: { get(name: string): unknown };
  toPy(value: unknown): { destroy(): void };
}

/** The worker's global scope (typed here: the package compiles without the webworker library). */
const scope = globalThis as unknown as { postMessage(m: unknown): void; onmessage: ((e: { data: InitMessage | RunMessage }) => void) | null } & Record<
  string,
  unknown
>;
const post = (m: WorkerReply) => scope.postMessage(m);

let py: PyodideLike | undefined;
let maxOutputBytes = 0;
let killAfterBytes = 0;

/**
 * Python run once after start-up (after RUN): the state every program starts from, and `_agentrl_reset()` that
 * returns to it: `sys.modules` and every loaded module's namespace as they were (so `math.pi = 3` or a planted
 * module does not reach the next program), files new under `/home` and `/tmp` deleted, `os.environ` and the working
 * directory restored. Name resolution answers nothing: Emscripten's resolver invents addresses without asking the
 * network, and a program should see what it sees in the other sandboxes (no DNS).
 */
const SNAPSHOT = `
import sys, os, shutil, types, socket, _socket
def _agentrl_no_dns(*args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
socket.getaddrinfo = _socket.getaddrinfo = _agentrl_no_dns
socket.gethostbyname = _socket.gethostbyname = _agentrl_no_dns
def _agentrl_make_reset():
    def tree():
        out = set()
        for root in ("/home", "/tmp"):
            for d, dirs, files in os.walk(root):
                out.add(d)
                out.update(os.path.join(d, f) for f in files)
        return out
    modules = dict(sys.modules)
    namespaces = {n: (m, dict(m.__dict__)) for n, m in modules.items() if isinstance(m, types.ModuleType)}
    environ = dict(os.environ)
    cwd = os.getcwd()
    files = tree()
    def reset():
        sys.modules.clear()
        sys.modules.update(modules)
        for n, (m, saved) in namespaces.items():
            live = m.__dict__
            if n == "__main__":
                saved = {**saved, "_agentrl_reset": reset}
            if live != saved:
                live.clear()
                live.update(saved)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        for p in sorted(tree() - files, key=len, reverse=True):
            try:
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
            except OSError:
                pass
    return reset
_agentrl_reset = _agentrl_make_reset()
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
  for (const name of [
    'fetch',
    'XMLHttpRequest',
    'WebSocket',
    'EventSource',
    'importScripts',
    'Worker',
    'SharedWorker',
    'WebTransport',
    'indexedDB',
    'caches',
  ]) {
    try {
      Object.defineProperty(scope, name, { value: undefined, configurable: false, writable: false });
    } catch {
      // already absent in this browser
    }
  }
}

/** Cut position ≤ `end` that does not split a UTF-8 character (so a cap never invents U+FFFD). */
function safeEnd(b: Uint8Array, end: number): number {
  let i = end;
  while (i > 0 && i > end - 4 && (b[i]! & 0xc0) === 0x80) i--;
  // b[i] starts a character: keep it only when all its bytes fit before `end`.
  const lead = b[i] ?? 0;
  const len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + len <= end ? end : i;
}

/** Start position ≥ `start` on a character boundary. */
function safeStart(b: Uint8Array, start: number): number {
  let i = start;
  while (i < b.length && i < start + 4 && (b[i]! & 0xc0) === 0x80) i++;
  return i;
}

/**
 * One output stream: the first half of `maxOutputBytes` and the last half are kept, the middle counted (as the local
 * adapter does: a long output is `ok` and `truncated`, with a marker); past `killAfterBytes` in all the page is told at
 * once and ends the call as `output_limit`.
 */
class Capture {
  readonly #head: Uint8Array;
  #headLen = 0;
  #tail: Uint8Array[] = [];
  #tailLen = 0;
  total = 0;
  constructor(
    readonly tailCap: number,
    headCap: number,
    readonly onOverflow: () => void,
  ) {
    this.#head = new Uint8Array(headCap);
  }
  write = (buffer: Uint8Array): number => {
    this.total += buffer.length;
    let rest = buffer;
    if (this.#headLen < this.#head.length) {
      const n = Math.min(this.#head.length - this.#headLen, rest.length);
      this.#head.set(rest.subarray(0, n), this.#headLen);
      this.#headLen += n;
      rest = rest.subarray(n);
    }
    if (rest.length > 0) {
      this.#tail.push(rest.slice(Math.max(0, rest.length - this.tailCap)));
      this.#tailLen += Math.min(rest.length, this.tailCap);
      while (this.#tailLen - this.#tail[0]!.length >= this.tailCap) this.#tailLen -= this.#tail.shift()!.length;
    }
    if (this.total > killAfterBytes) this.onOverflow();
    return buffer.length;
  };
  get truncated(): boolean {
    return this.total > this.#headLen + Math.min(this.#tailLen, this.tailCap);
  }
  text(): string {
    const decoder = new TextDecoder();
    const tail = new Uint8Array(this.#tailLen);
    let at = 0;
    for (const c of this.#tail) {
      tail.set(c, at);
      at += c.length;
    }
    const tailKept = tail.subarray(Math.max(0, tail.length - this.tailCap));
    if (!this.truncated) {
      const all = new Uint8Array(this.#headLen + tailKept.length);
      all.set(this.#head.subarray(0, this.#headLen));
      all.set(tailKept, this.#headLen);
      return decoder.decode(all);
    }
    const head = this.#head.subarray(0, safeEnd(this.#head, this.#headLen));
    const end = tailKept.subarray(safeStart(tailKept, 0));
    const omitted = this.total - head.length - end.length;
    return `${decoder.decode(head)}\n[... ${omitted} bytes truncated ...]\n${decoder.decode(end)}`;
  }
}

async function init(m: InitMessage): Promise<void> {
  maxOutputBytes = m.maxOutputBytes;
  killAfterBytes = m.killAfterOutputBytes;
  const mod = (await import(/* @vite-ignore */ `${m.indexURL}pyodide.mjs`)) as { loadPyodide(o: { indexURL: string }): Promise<PyodideLike> };
  py = await mod.loadPyodide({ indexURL: m.indexURL });
  py.runPython(RUN);
  py.runPython(SNAPSHOT);
  cutNetwork();
}

function run(m: RunMessage): void {
  const p = py!;
  let overflowed = false;
  const headCap = Math.floor(maxOutputBytes / 2);
  const stdout = new Capture(maxOutputBytes - headCap, headCap, () => overflow());
  const stderr = new Capture(maxOutputBytes - headCap, headCap, () => overflow());
  function overflow(): void {
    if (overflowed) return;
    overflowed = true;
    // The page terminates this worker on this message; the program is not trusted to stop by itself.
    post({ kind: 'output-limit', id: m.id, stdout: stdout.text(), stderr: stderr.text(), truncated: true });
  }
  p.setStdout({ write: stdout.write });
  p.setStderr({ write: stderr.write });
  const stdinBytes = new TextEncoder().encode(m.stdin);
  let stdinAt = 0;
  p.setStdin({
    read: (buffer: Uint8Array) => {
      const n = Math.min(buffer.length, stdinBytes.length - stdinAt);
      buffer.set(stdinBytes.subarray(stdinAt, stdinAt + n));
      stdinAt += n;
      return n; // 0: end of input
    },
  });
  const fn = p.globals.get('_agentrl_run') as ((code: string) => number) & { destroy?: () => void };
  const exitCode = fn(m.code);
  fn.destroy?.();
  p.runPython('_agentrl_reset()');
  if (!overflowed) post({ kind: 'result', id: m.id, exitCode, stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated });
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
