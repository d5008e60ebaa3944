/**
 * Source of the child process that owns the isolate (CommonJS, run as
 * `node --no-node-snapshot -e <WORKER_SOURCE>` with an IPC channel and an empty environment).
 * `AGENTRL_IVM_PATH` (resolved path of the `isolated-vm` package) and `AGENTRL_IVM_MEMORY_MB` are
 * passed in its environment.
 *
 * Messages: parent → child `{ id, code, timeoutMs, maxOutputBytes, killAfterBytes, session? }`;
 * child → parent `{ type: 'ready' }` once, then per call `{ type: 'result', id, status, exitCode,
 * stdout: {head, tail, total}, stderr: {head, tail, total}, wallMs, cpuMs }` (head/tail are
 * base64), and `{ type: 'catastrophic', message }` right before it kills itself.
 *
 * Per call: one reused isolate, a fresh context; the code runs as the body of an async function
 * (so top-level `await` works); `console.log/info/debug` → stdout, `console.error/warn` → stderr,
 * a thrown or rejected error → its stack on stderr and exit code 1. Synchronous code is bounded
 * by isolated-vm's `timeout`; promises are not, so an outer deadline disposes the isolate (a new
 * one is made for the next call). Output is capped in the child (head + rolling tail, bytes);
 * past `killAfterBytes` the isolate is disposed and the call is `output_limit`.
 *
 * Session mode (`session: true`, a worker that serves one session): one context kept from call to
 * call, the code run as a script (top-level declarations persist; no top-level `await`); replies
 * add `fresh` (a new context was made for this call) and `ended` (the isolate was disposed).
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const ivm = require(process.env.AGENTRL_IVM_PATH);
const MEMORY_MB = Number(process.env.AGENTRL_IVM_MEMORY_MB) || 64;
let isolate = null;

function newIsolate() {
  isolate = new ivm.Isolate({
    memoryLimit: MEMORY_MB,
    onCatastrophicError: (message) => {
      try { process.send({ type: 'catastrophic', message: String(message) }); } catch (e) {}
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20);
    },
  });
}

// Whether a call that ran out of time was at the isolate's memory limit: V8 collecting garbage over and over near the
// limit makes a heap bomb slow, so it often meets its deadline first. Read once the isolate is idle (isolated-vm's own
// timeout has stopped the script), from the committed heap, which a collection racing the read does not shrink.
async function atMemoryLimit(iso) {
  try {
    if (iso.isDisposed) return false;
    const h = await Promise.race([iso.getHeapStatistics(), new Promise((r) => setTimeout(() => r(null), 1000))]);
    if (!h) return false;
    return h.total_heap_size + (h.externally_allocated_size || 0) >= 0.8 * MEMORY_MB * 1024 * 1024;
  } catch (e) {
    return /memory limit/i.test(String((e && e.message) || e));
  }
}

function disposeIsolate() {
  if (isolate) {
    try { if (!isolate.isDisposed) isolate.dispose(); } catch (e) {}
  }
  isolate = null;
}

const SHIM = [
  '"use strict";',
  '(() => {',
  '  const write = globalThis.__agentrl_write;',
  '  delete globalThis.__agentrl_write;',
  '  const fmt = (v, depth) => {',
  '    if (typeof v === "string") return depth ? JSON.stringify(v) : v;',
  '    if (typeof v === "bigint") return v + "n";',
  '    if (typeof v === "symbol" || typeof v === "function") return String(v);',
  '    if (v instanceof Error) return v.stack || (v.name + ": " + v.message);',
  '    if (v === null || typeof v !== "object") return String(v);',
  '    try { return JSON.stringify(v, (k, x) => typeof x === "bigint" ? x + "n" : x); } catch (e) { return Object.prototype.toString.call(v); }',
  '  };',
  '  const line = (args) => Array.prototype.map.call(args, (a) => fmt(a, 0)).join(" ") + "\\n";',
  '  const out = function () { if (write(1, line(arguments))) throw new RangeError("output limit exceeded"); };',
  '  const err = function () { if (write(2, line(arguments))) throw new RangeError("output limit exceeded"); };',
  '  const c = { log: out, info: out, debug: out, trace: err, error: err, warn: err };',
  '  Object.defineProperty(globalThis, "console", { value: Object.freeze(c), writable: false, configurable: false });',
  '  Object.defineProperty(globalThis, "__agentrl_report", { value: (e) => { try { write(2, (e && e.stack) ? String(e.stack) + "\\n" : "Uncaught " + fmt(e, 1) + "\\n"); } catch (x) {} return e instanceof RangeError && /Array buffer allocation failed|allocation failed|out of memory/i.test(String(e.message)) ? 2 : 1; }, enumerable: false });',
  '})();',
].join('\n');

function capped(cap) {
  const headCap = Math.floor(cap / 2);
  const tailCap = cap - headCap;
  return { head: [], headBytes: 0, tail: Buffer.alloc(0), total: 0, headCap, tailCap };
}

function push(s, text) {
  let b = Buffer.from(text, 'utf8');
  s.total += b.length;
  const room = s.headCap - s.headBytes;
  if (room > 0) {
    const h = b.subarray(0, room);
    s.head.push(h);
    s.headBytes += h.length;
    b = b.subarray(h.length);
  }
  if (b.length > 0) {
    const t = Buffer.concat([s.tail, b]);
    s.tail = t.length > s.tailCap ? Buffer.from(t.subarray(t.length - s.tailCap)) : t;
  }
}

function pack(s) {
  return { head: Buffer.concat(s.head).toString('base64'), tail: s.tail.toString('base64'), total: s.total };
}

// Session mode (msg.session): this worker serves one session; its context lives until the isolate is
// disposed (timeout, flood, memory), and the code runs as a script so its declarations persist.
let sessionCtx = null;
let curWrite = null;
const sessionWrite = (fd, text) => (curWrite ? curWrite(fd, text) : true);

async function runCall(msg) {
  if (!isolate || isolate.isDisposed) { newIsolate(); sessionCtx = null; }
  const iso = isolate;
  const session = msg.session === true;
  let fresh = false;
  const streams = { 1: capped(msg.maxOutputBytes), 2: capped(msg.maxOutputBytes) };
  let flooded = false;
  let stopFlood;
  const floodP = new Promise((r) => { stopFlood = r; });
  const write = (fd, text) => {
    if (flooded) return true;
    const s = streams[fd === 2 ? 2 : 1];
    push(s, String(text));
    if (streams[1].total + streams[2].total > msg.killAfterBytes) {
      flooded = true;
      stopFlood('flood');
      return true;
    }
    return false;
  };
  const cpu0 = iso.cpuTime;
  const t0 = performance.now();
  let status = 'ok';
  let exitCode = 0;
  let context = null;
  let timer;
  const deadlineP = new Promise((r) => { timer = setTimeout(() => r('deadline'), msg.timeoutMs); });
  try {
    if (session && sessionCtx) {
      context = sessionCtx;
    } else {
      context = await iso.createContext();
      await context.global.set('__agentrl_write', new ivm.Callback(session ? sessionWrite : write));
      await context.eval(SHIM);
      if (session) { sessionCtx = context; fresh = true; }
    }
    curWrite = write;
    let script;
    try {
      script = session
        ? await iso.compileScript(msg.code, { filename: 'main.js' })
        : await iso.compileScript('(async () => {\n' + msg.code + '\n})().then(() => 0, (e) => __agentrl_report(e))', { filename: 'main.js', lineOffset: -1 });
    } catch (e) {
      push(streams[2], String(e && e.name ? e.name + ': ' + e.message : e) + '\n');
      status = 'error';
      exitCode = 1;
    }
    if (script) {
      // A session's completion value can be anything (a function): kept as a reference and released.
      const runOpts = session ? { timeout: msg.timeoutMs, promise: true, reference: true } : { timeout: msg.timeoutMs, promise: true, copy: true };
      const runP = script.run(context, runOpts).then((v) => { if (session) { try { v.release(); } catch (e) {} return { v: 0 }; } return { v }; }, (e) => ({ e }));
      const r = await Promise.race([runP, deadlineP, floodP]);
      if (r === 'deadline') {
        status = (await atMemoryLimit(iso)) ? 'memory' : 'timeout'; exitCode = null; disposeIsolate();
      } else if (r === 'flood') {
        status = 'output_limit'; exitCode = null; disposeIsolate();
      } else if (flooded) {
        status = 'output_limit'; exitCode = null;
      } else if ('e' in r && session && !/timed out|memory limit|out of memory|allocation failed|isolate (is )?disposed/i.test(String(r.e && r.e.message || r.e))) {
        // the session's own code threw: report it like the wrapped form does; the session goes on
        push(streams[2], String((r.e && r.e.stack) || (r.e && r.e.name ? r.e.name + ': ' + r.e.message : 'Uncaught ' + r.e)) + '\n');
        status = 'error'; exitCode = 1;
      } else if ('e' in r && session && /allocation failed|out of memory/i.test(String(r.e && r.e.message || r.e)) && !/timed out|memory limit|disposed/i.test(String(r.e && r.e.message || r.e))) {
        // an allocation the limit refused, thrown to the session's code: memory; the session goes on
        push(streams[2], String((r.e && r.e.stack) || r.e) + '\n');
        status = 'memory'; exitCode = 1;
      } else if ('e' in r) {
        const m = String(r.e && r.e.message || r.e);
        exitCode = null;
        if (/timed out/i.test(m)) status = (await atMemoryLimit(iso)) ? 'memory' : 'timeout';
        else if (/memory limit|out of memory|allocation failed/i.test(m)) status = 'memory';
        else { status = 'sandbox_error'; push(streams[2], 'isolate error: ' + m + '\n'); }
        disposeIsolate();
      } else {
        exitCode = session ? 0 : typeof r.v === 'number' ? Math.min(r.v, 1) : 0;
        status = r.v === 2 ? 'memory' : exitCode === 0 ? 'ok' : 'error';
      }
    }
  } catch (e) {
    const m = String(e && e.message || e);
    exitCode = null;
    if (/memory limit|out of memory/i.test(m)) status = 'memory';
    else { status = 'sandbox_error'; push(streams[2], 'isolate error: ' + m + '\n'); }
    disposeIsolate();
  } finally {
    clearTimeout(timer);
    curWrite = null;
  }
  const wallMs = performance.now() - t0;
  let cpuMs;
  try { cpuMs = Number(iso.cpuTime - cpu0) / 1e6; } catch (e) { cpuMs = undefined; }
  if (context && isolate && !isolate.isDisposed && !session) {
    try { context.release(); } catch (e) {}
    try {
      const h = isolate.getHeapStatisticsSync();
      if (h.used_heap_size > 0.7 * MEMORY_MB * 1024 * 1024) disposeIsolate();
    } catch (e) { disposeIsolate(); }
  }
  const ended = session && (!isolate || isolate.isDisposed);
  if (ended) sessionCtx = null;
  return { type: 'result', id: msg.id, status, exitCode, stdout: pack(streams[1]), stderr: pack(streams[2]), wallMs, cpuMs, fresh, ended };
}

let chain = Promise.resolve();
process.on('message', (msg) => {
  chain = chain.then(() => runCall(msg)).then((res) => process.send(res), (e) => process.send({
    type: 'result', id: msg.id, status: 'sandbox_error', exitCode: null,
    stdout: { head: '', tail: '', total: 0 },
    stderr: { head: Buffer.from('worker: ' + String(e && e.stack || e)).toString('base64'), tail: '', total: 0 },
    wallMs: 0,
  }));
});
process.on('disconnect', () => process.exit(0));
newIsolate();
process.send({ type: 'ready' });
`;
