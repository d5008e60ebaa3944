import { spawn, type ChildProcess } from 'node:child_process';
import { ConfigError, SqlDatabaseError, type ConfigIssue } from '../../errors/index.js';
import { onAbort } from '../../util/on-abort.js';
import { checkSql, MAX_SQL_CHARS } from './guard.js';
import { resolveSqliteModule } from './native.js';
import { QUERY_WORKER_SOURCE } from './worker-source.js';
import type { SqlExecutor, SqlQueryRequest, SqlQueryResult, SqlSource } from './types.js';

/** Options of {@link sqlQueryPool}. */
export interface SqlQueryPoolOptions {
  /**
   * The database every query runs against: bytes (copied once here, then sent to each query process, which opens
   * a private read-only in-memory copy) or a file path (each process opens the file read-only; better for large
   * databases).
   */
  readonly database: SqlSource;
  /** Long-lived query processes (queries beyond this wait in FIFO order). @default 2 */
  readonly workers?: number;
  /** Default per-query deadline in ms; the process running a query is SIGKILLed at it and replaced. @default 5_000 */
  readonly timeoutMs?: number;
  /** Default row cap per query. @default 1_000 */
  readonly maxRows?: number;
  /** Approximate size cap of one result in bytes (UTF-16 strings, blob bytes, 8 per number); rows past it are cut. @default 16_777_216 */
  readonly maxResultBytes?: number;
  /**
   * Memory a query may use, in bytes; 0 for no limit. Enforced by the operating system on Linux: each query process
   * runs under `RLIMIT_DATA` (heap and private writable mappings) = this + {@link SQL_RUNTIME_ALLOWANCE_BYTES} for
   * the Node.js runtime + twice the database's size when it is given as bytes (the received copy and SQLite's).
   * A query past it gets the `memory` status (SQLite's allocation fails, or the process dies and is replaced).
   * SQLite's own `hard_heap_limit` is set too, but the bundled build does not enforce it (memory statistics are
   * compiled off), so on other systems there is no limit. @default 268_435_456
   */
  readonly memoryLimitBytes?: number;
  /** Longest statement accepted, in characters; longer ones are `refused` unread. @default MAX_SQL_CHARS (100_000) */
  readonly maxSqlChars?: number;
  /** How long a new process may take to open the database, in ms. @default 15_000 */
  readonly startTimeoutMs?: number;
}

/** Counters of a {@link SqlQueryPool} (for metrics and the kill-latency figure). */
export interface SqlQueryPoolStats {
  readonly spawned: number;
  readonly queries: number;
  readonly timeouts: number;
  /** ms from each deadline kill (SIGKILL sent) until the process was gone, most recent last (≤ 100 kept). */
  readonly killLatenciesMs: readonly number[];
  /** Queries that ran out of memory (`memory` status). */
  readonly outOfMemory: number;
  /**
   * The data-size limit (`RLIMIT_DATA`, bytes) the most recently started query process reported for itself;
   * `null` when it runs without one (no `memoryLimitBytes`, not Linux) or none has started yet.
   */
  readonly dataLimitBytes: number | null;
}

/**
 * Memory granted to a query process beyond `memoryLimitBytes` for the Node.js runtime itself (its data size is
 * ~50 MiB after opening a database; the rest is room for result rows and their serialisation), in bytes.
 */
export const SQL_RUNTIME_ALLOWANCE_BYTES = 128 * 1024 * 1024;

/** What a query process's stderr says when it died for lack of memory (V8 or the C allocator). */
const OOM_TEXT = /out of memory|allocation failed|cannot allocate memory|bad_alloc/i;

/** A {@link SqlExecutor} backed by child processes; see {@link sqlQueryPool}. */
export interface SqlQueryPool extends SqlExecutor {
  stats(): SqlQueryPoolStats;
}

interface Job {
  readonly req: SqlQueryRequest;
  readonly signal: AbortSignal | undefined;
  /** Cancels the current abort watch (dequeue while queued, kill while running); set while there is one. */
  unwatch: () => void;
  resolve(r: SqlQueryResult): void;
  reject(e: unknown): void;
}

interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  busy: boolean;
  dead: boolean;
  stderr: string;
  onResult?: (m: Record<string, unknown>) => void;
  onExit?: () => void;
}

function validate(o: SqlQueryPoolOptions): void {
  const issues: ConfigIssue[] = [];
  if (typeof o.database !== 'string' && !(o.database instanceof Uint8Array)) {
    issues.push({ path: 'database', message: 'expected a file path or the bytes of a SQLite file' });
  }
  const int = (path: string, v: number | undefined, min: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) issues.push({ path, message: `expected an integer ≥ ${min}, got ${v}` });
  };
  int('workers', o.workers, 1);
  int('timeoutMs', o.timeoutMs, 1);
  int('maxRows', o.maxRows, 0);
  int('memoryLimitBytes', o.memoryLimitBytes, 0);
  int('maxResultBytes', o.maxResultBytes, 1);
  int('startTimeoutMs', o.startTimeoutMs, 1);
  int('maxSqlChars', o.maxSqlChars, 1);
  if (issues.length) throw new ConfigError('SQL query pool options', issues);
}

const failed = (status: SqlQueryResult['status'], error: string, wallMs = 0): SqlQueryResult => ({
  status,
  columns: [],
  rows: [],
  truncated: false,
  error,
  wallMs,
});

function toResult(m: Record<string, unknown>): SqlQueryResult {
  const r: SqlQueryResult = {
    status: m['status'] as SqlQueryResult['status'],
    columns: (m['columns'] as string[] | undefined) ?? [],
    rows: (m['rows'] as unknown[][] | undefined) ?? [],
    truncated: m['truncated'] === true,
    wallMs: typeof m['wallMs'] === 'number' ? m['wallMs'] : 0,
  };
  return typeof m['error'] === 'string' ? { ...r, error: m['error'] } : r;
}

/**
 * Runs model-written SQL in a small pool of long-lived child processes, each holding a read-only copy of the
 * database (better-sqlite3 cannot interrupt a query and `worker.terminate()` does not stop native code, so a
 * query past its deadline gets its process SIGKILLed; the pool resolves `timeout` at the deadline and starts a
 * replacement). Statements are checked by {@link checkSql} first; writes and multiple statements are refused by
 * the query process. Processes are spawned lazily, do not keep the event loop alive while idle, and get no
 * environment variables but the module path.
 * @throws ConfigError for invalid options. `query` rejects with `SqlDatabaseError` when a process cannot open the database.
 */
export function sqlQueryPool(opts: SqlQueryPoolOptions): SqlQueryPool {
  validate(opts);
  const size = opts.workers ?? 2;
  const defTimeoutMs = opts.timeoutMs ?? 5_000;
  const defMaxRows = opts.maxRows ?? 1_000;
  const memoryLimitBytes = opts.memoryLimitBytes ?? 268_435_456;
  const maxBytes = opts.maxResultBytes ?? 16_777_216;
  const startTimeoutMs = opts.startTimeoutMs ?? 15_000;
  const maxSqlChars = opts.maxSqlChars ?? MAX_SQL_CHARS;
  const source = typeof opts.database === 'string' ? opts.database : new Uint8Array(opts.database);
  const dataLimitBytes =
    memoryLimitBytes > 0 && process.platform === 'linux'
      ? memoryLimitBytes + SQL_RUNTIME_ALLOWANCE_BYTES + (typeof source === 'string' ? 0 : 2 * source.byteLength)
      : undefined;
  let modulePath: string | undefined;
  const workers = new Set<Worker>();
  const queue: Job[] = [];
  let closed = false;
  let nextId = 0;
  const stats = { spawned: 0, queries: 0, timeouts: 0, outOfMemory: 0, killLatenciesMs: [] as number[], dataLimitBytes: null as number | null };

  function spawnWorker(): Worker {
    modulePath ??= resolveSqliteModule();
    // With a limit, /bin/sh sets RLIMIT_DATA (soft and hard) and execs node in its place (same pid). If the hard
    // limit is already lower, `ulimit` fails and the lower one stays: the process is limited either way.
    const [cmd, args] =
      dataLimitBytes === undefined
        ? [process.execPath, ['-e', QUERY_WORKER_SOURCE]]
        : ['/bin/sh', ['-c', `ulimit -d ${Math.ceil(dataLimitBytes / 1024)} 2>/dev/null; exec "$0" -e "$1"`, process.execPath, QUERY_WORKER_SOURCE]];
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: { AGENTRL_SQLITE_MODULE: modulePath },
    });
    stats.spawned++;
    let readyResolve!: () => void;
    let readyReject!: (e: unknown) => void;
    const ready = new Promise<void>((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    ready.catch(() => undefined);
    const w: Worker = { child, ready, busy: false, dead: false, stderr: '' };
    const startTimer = setTimeout(() => {
      readyReject(new SqlDatabaseError(`query process did not start within ${startTimeoutMs} ms`));
      child.kill('SIGKILL');
    }, startTimeoutMs);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => (w.stderr = (w.stderr + d).slice(-2000)));
    child.on('message', (m: Record<string, unknown>) => {
      if (m['type'] === 'ready') {
        clearTimeout(startTimer);
        if (typeof m['error'] === 'string') {
          readyReject(new SqlDatabaseError(`cannot open SQLite database: ${m['error']}`));
          child.kill('SIGKILL');
        } else {
          stats.dataLimitBytes = typeof m['dataLimitBytes'] === 'number' ? m['dataLimitBytes'] : null;
          readyResolve();
        }
      } else if (m['type'] === 'result') w.onResult?.(m);
    });
    child.on('error', (err) => readyReject(new SqlDatabaseError(`query process failed: ${err.message}`, { cause: err })));
    child.on('exit', () => {
      clearTimeout(startTimer);
      w.dead = true;
      workers.delete(w);
      readyReject(new SqlDatabaseError(`query process exited during start-up: ${w.stderr.trim() || 'no output'}`));
      w.onExit?.();
      pump();
    });
    child.send({ type: 'init', source, memoryLimitBytes });
    idle(w);
    workers.add(w);
    return w;
  }

  // An idle process must not keep the event loop alive; a busy one must.
  function idle(w: Worker): void {
    w.child.unref();
    (w.child.channel as { unref?: () => void } | null | undefined)?.unref?.();
    (w.child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }
  function busy(w: Worker): void {
    w.child.ref();
    (w.child.channel as { ref?: () => void } | null | undefined)?.ref?.();
  }

  function pump(): void {
    while (!closed && queue.length > 0) {
      let w = [...workers].find((x) => !x.busy && !x.dead);
      if (!w && workers.size < size) {
        try {
          w = spawnWorker();
        } catch (err) {
          for (const job of queue.splice(0)) job.reject(err);
          return;
        }
      }
      if (!w) return;
      const job = queue.shift()!;
      run(w, job);
    }
  }

  function run(w: Worker, job: Job): void {
    job.unwatch();
    w.busy = true;
    busy(w);
    const finish = () => {
      w.onResult = undefined;
      w.onExit = undefined;
      job.unwatch();
      if (!w.dead) {
        w.busy = false;
        idle(w);
      }
      pump();
    };
    const kill = (): void => {
      const t0 = performance.now();
      w.dead = true;
      workers.delete(w);
      w.child.once('exit', () => {
        stats.killLatenciesMs.push(performance.now() - t0);
        if (stats.killLatenciesMs.length > 100) stats.killLatenciesMs.shift();
        if (!closed && workers.size < size) {
          try {
            spawnWorker(); // keep the pool warm
          } catch {
            // the next query will try again and report the failure
          }
        }
      });
      w.child.kill('SIGKILL');
    };
    let timer: NodeJS.Timeout | undefined;
    const aborted = () => {
      clearTimeout(timer);
      kill();
      finish();
      job.reject(job.signal?.reason);
    };
    if (job.signal?.aborted) {
      aborted();
      return;
    }
    job.unwatch = onAbort(job.signal, aborted);
    w.ready.then(
      () => {
        if (w.dead) return;
        const id = ++nextId;
        const timeoutMs = job.req.timeoutMs ?? defTimeoutMs;
        const t0 = performance.now();
        stats.queries++;
        w.onResult = (m) => {
          if (m['id'] !== id) return;
          clearTimeout(timer);
          finish();
          const r = toResult(m);
          if (r.status === 'memory') stats.outOfMemory++;
          job.resolve(r);
        };
        w.onExit = () => {
          clearTimeout(timer);
          finish();
          const detail = w.stderr.trim().slice(-300) || 'no output';
          if (OOM_TEXT.test(detail)) {
            stats.outOfMemory++;
            job.resolve(failed('memory', `the query ran out of memory (the query process died: ${detail})`, performance.now() - t0));
          } else job.resolve(failed('worker_error', `the query process died: ${detail}`, performance.now() - t0));
        };
        timer = setTimeout(() => {
          stats.timeouts++;
          w.onExit = undefined;
          kill();
          finish();
          job.resolve(failed('timeout', `the query did not finish within ${timeoutMs} ms`, performance.now() - t0));
        }, timeoutMs);
        w.child.send({ type: 'query', id, sql: job.req.sql, maxRows: job.req.maxRows ?? defMaxRows, maxBytes });
      },
      (err: unknown) => {
        finish();
        job.reject(err);
      },
    );
  }

  return {
    query(req: SqlQueryRequest, signal?: AbortSignal): Promise<SqlQueryResult> {
      if (closed) return Promise.reject(new SqlDatabaseError('the SQL query pool is closed'));
      if (signal?.aborted) return Promise.reject(signal.reason);
      const refusal = checkSql(req.sql, { maxChars: maxSqlChars });
      if (refusal) return Promise.resolve(failed('refused', refusal));
      return new Promise<SqlQueryResult>((resolve, reject) => {
        // Every way out of the queue or out of run() calls `unwatch`, so no abort registration outlives its query.
        const job: Job = {
          req,
          signal,
          unwatch: () => undefined,
          resolve,
          reject: (e) => {
            job.unwatch();
            reject(e);
          },
        };
        job.unwatch = onAbort(signal, (reason) => {
          const i = queue.indexOf(job);
          if (i !== -1) {
            queue.splice(i, 1);
            reject(reason);
          }
        });
        queue.push(job);
        pump();
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(new SqlDatabaseError('the SQL query pool is closed'));
      const exits = [...workers].map(
        (w) =>
          new Promise<void>((res) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return res();
            // Idle workers are unref'd; hold the event loop while awaiting their exit, or a script's
            // top-level `await env.close()` ends the program with "unsettled top-level await" (exit 13).
            w.child.ref();
            w.child.once('exit', () => res());
          }),
      );
      for (const w of workers) w.child.kill('SIGKILL');
      await Promise.all(exits);
      workers.clear();
    },
    stats: () => ({ ...stats, killLatenciesMs: [...stats.killLatenciesMs] }),
  };
}
