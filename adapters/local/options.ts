import { availableParallelism } from 'node:os';
import { z } from '../../src/util/zod.js';
import { ConfigError } from '../../src/errors/index.js';

/** A warning from the local sandbox (isolation missing, preload failed, zygote recycled after an anomaly). */
export interface LocalSandboxWarning {
  /** Which protection is missing or what happened, as a stable code. */
  readonly code: 'ISOLATION_UNAVAILABLE' | 'PRELOAD_FAILED' | 'ZYGOTE_RECYCLED' | 'PATH_NOT_HIDDEN' | 'SANDBOX_RUNS_AS_ROOT' | 'MEMORY_NOT_BOUNDED';
  /** What happened and what to do about it, in words. */
  readonly message: string;
}

/** Options of {@link localSandbox}. Every field is optional; defaults in `@default`. */
export interface LocalSandboxOptions {
  /** Calls run at once (and, in `fork-server` mode, warm zygotes kept). @default min(4, availableParallelism()) */
  readonly workers?: number;
  /** Default wall-clock limit per call, ms; CPU rlimit is `ceil(timeoutMs/1000)+1` s (hard +1 s). @default 30000 */
  readonly timeoutMs?: number;
  /** Real Python binary (not a pyenv shim). @default '/usr/bin/python3' */
  readonly python?: string;
  /** `fork-server`: warm zygotes fork per call (fast path). `spawn`: fresh `python3 -I` per call (reference). @default 'fork-server' */
  readonly mode?: 'fork-server' | 'spawn';
  /** Network access for model code. Only `false` is supported. @default false */
  readonly network?: false;
  /**
   * Memory of one call, MiB; 0 = no limit. Always: RLIMIT_AS of each process (address space over the
   * interpreter's start-up footprint). With a memory cgroup (see `memoryControl`), also the call as a
   * whole (fork-server: each worker's footprint + `memoryMb`; each session: `memoryMb` over what it shares with its zygote),
   * its forks, tmpfs files, memfds and shared memory included; exceeding it ends in `status: 'memory'`.
   * @default 2048
   */
  readonly memoryMb?: number;
  /**
   * How memory is bounded as a whole. `auto`: a cgroup (v2, else v1's memory controller) below the
   * trainer's own when one can be created, else `rlimit` with a `MEMORY_NOT_BOUNDED` warning.
   * `rlimit`: RLIMIT_AS per process only; `memfd_create` is then denied (its pages escape RLIMIT_AS),
   * `/tmp` and `/dev/shm` are bounded by `tmpfsMb` each and System V shared memory by the call's own
   * IPC namespace, but forks each get their own RLIMIT_AS. Fork-server mode only (spawn mode: `rlimit`).
   * @default 'auto'
   */
  readonly memoryControl?: 'auto' | 'rlimit';
  /** Total CPU seconds one session may use over all its calls (hard RLIMIT_CPU); each call still gets the per-call CPU limit. @default 600 */
  readonly sessionCpuSeconds?: number;
  /** Modules the full zygote of each worker imports before forking (fork-server only); missing ones are skipped with a warning. @default ['math','itertools','fractions','numpy','sympy'] */
  readonly preload?: readonly string[];
  /**
   * Modules of a second, light zygote per worker (fork-server only). A call whose code does not
   * name any `preload` module outside this list (as a word, e.g. `numpy`, `sympy`) is forked from
   * it: forking a small interpreter and the pages its child copies cost a fraction of the full
   * zygote's. Routing only changes speed, never results. `false`: one zygote per worker.
   * @default ['math', 'itertools', 'fractions', 'functools', 'collections', 'decimal', 're']
   */
  readonly lightPreload?: readonly string[] | false;
  /**
   * Python run once in each zygote after `preload`, before any fork (fork-server only), so lazily
   * built library state exists before the copy-on-write fork. It must not depend on user input.
   * @default {@link DEFAULT_WARMUP} (exercises sympy and numpy when they are preloaded)
   */
  readonly warmup?: string;
  /** Reader cap per stream (stdout, stderr), bytes; larger output keeps head + tail around a marker. @default 65536 */
  readonly maxOutputBytes?: number;
  /**
   * RLIMIT_FSIZE of the child (bounds every file it writes, stdout/stderr included), bytes; a call whose
   * stdout and stderr together reach it is killed as `output_limit`. @default 16777216
   */
  readonly maxFileBytes?: number;
  /** Size of the per-call tmpfs (`/tmp`, the working dir), MiB (fork-server with isolation). @default 256 */
  readonly tmpfsMb?: number;
  /** RLIMIT_NOFILE of the child. @default 256 */
  readonly openFiles?: number;
  /**
   * RLIMIT_NPROC: processes (and threads) the sandbox's user may have inside one worker's sandbox
   * (fork-server) or one call (spawn), server and zygotes included. Not enforced for host root, so a
   * root trainer's sandbox runs as `nobody` (see `SANDBOX_RUNS_AS_ROOT`). @default 256
   */
  readonly maxProcesses?: number;
  /** A worker's zygote server (and its zygotes) is replaced after this many calls (and after any anomaly). @default 1000 */
  readonly recycleAfter?: number;
  /** `auto`: bubblewrap when it works, else no isolation with a warning; `bwrap`: require it; `none`: no namespaces (warns). @default 'auto' */
  readonly isolation?: 'auto' | 'bwrap' | 'none';
  /**
   * Host paths hidden behind an empty tmpfs inside the sandbox. With bubblewrap the sandbox sees only the
   * system directories and the Python installation (see `sandboxRoots`), so this matters only for paths
   * inside those (e.g. a secret under `/etc`), and without bubblewrap not at all.
   * @default [homedir(), '/root', '/home', process.cwd()] (those that exist; the working directory unless it is `/` or a system directory)
   */
  readonly hidePaths?: readonly string[];
  /** Called for every warning (also emitted as the `warning` event). */
  readonly onWarning?: (w: LocalSandboxWarning) => void;
}

/** Default zygote warm-up: typical ReTool calls into sympy / numpy, each only if already imported. */
export const DEFAULT_WARMUP = [
  'import sys',
  'if "sympy" in sys.modules:',
  '    import sympy as sp',
  '    x, y = sp.symbols("x y")',
  '    sp.factor(x**4 - 1); sp.solve(x**2 - 5*x + 6, x); sp.expand((x + y)**3)',
  '    sp.simplify(sp.sin(x)**2 + sp.cos(x)**2); sp.Rational(1, 3) + sp.sqrt(2); sp.integrate(x**2, x)',
  '    sp.nsimplify(0.5); sp.isprime(97); sp.binomial(10, 3); sp.N(sp.pi, 20); sp.latex(x / y); str(x + 1)',
  'if "numpy" in sys.modules:',
  '    import numpy as np',
  '    a = np.arange(64.0).reshape(8, 8); (a @ a.T).trace(); np.linalg.solve(np.eye(3), np.ones(3))',
  '    np.array([1, 2, 3]).sum(); np.sqrt(np.float64(2.0)); repr(np.ones(3)); np.linspace(0, 1, 5).mean()',
  'import traceback, linecache',
  'try:',
  '    1 // 0',
  'except ZeroDivisionError as e:',
  '    traceback.format_exception(type(e), e, e.__traceback__)',
].join('\n');

/** {@link LocalSandboxOptions} with defaults filled in. */
export type ResolvedLocalOptions = Required<Omit<LocalSandboxOptions, 'onWarning' | 'hidePaths'>> & {
  readonly onWarning: ((w: LocalSandboxWarning) => void) | undefined;
  readonly hidePaths: readonly string[] | undefined;
};

const schema = z.strictObject({
  workers: z.number().int().min(1).max(1024).optional(),
  timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
  python: z.string().min(1).optional(),
  mode: z.enum(['fork-server', 'spawn']).optional(),
  network: z.literal(false).optional(),
  memoryMb: z.number().int().min(0).optional(),
  memoryControl: z.enum(['auto', 'rlimit']).optional(),
  sessionCpuSeconds: z.number().int().min(1).optional(),
  warmup: z.string().optional(),
  lightPreload: z.union([z.literal(false), z.array(z.string().regex(/^[A-Za-z_][\w.]*$/, 'expected a module name'))]).optional(),
  preload: z.array(z.string().regex(/^[A-Za-z_][\w.]*$/, 'expected a module name')).optional(),
  maxOutputBytes: z.number().int().min(64).optional(),
  maxFileBytes: z.number().int().min(1024).optional(),
  tmpfsMb: z.number().int().min(1).optional(),
  openFiles: z.number().int().min(16).max(65_536).optional(),
  maxProcesses: z.number().int().min(16).max(1_000_000).optional(),
  recycleAfter: z.number().int().min(1).optional(),
  isolation: z.enum(['auto', 'bwrap', 'none']).optional(),
  hidePaths: z.array(z.string().startsWith('/')).optional(),
  onWarning: z.custom<(w: LocalSandboxWarning) => void>((v) => typeof v === 'function', 'expected a function').optional(),
});

/**
 * Validates and fills defaults.
 * @throws ConfigError listing every bad key with its dotted path.
 */
export function resolveLocalOptions(opts: LocalSandboxOptions = {}): ResolvedLocalOptions {
  const r = schema.safeParse(opts);
  if (!r.success) {
    throw new ConfigError(
      'localSandbox options',
      r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  const o = r.data;
  return {
    workers: o.workers ?? Math.max(1, Math.min(4, availableParallelism())),
    timeoutMs: o.timeoutMs ?? 30_000,
    python: o.python ?? '/usr/bin/python3',
    mode: o.mode ?? 'fork-server',
    network: false,
    memoryMb: o.memoryMb ?? 2048,
    memoryControl: o.memoryControl ?? 'auto',
    sessionCpuSeconds: o.sessionCpuSeconds ?? 600,
    preload: o.preload ?? ['math', 'itertools', 'fractions', 'numpy', 'sympy'],
    lightPreload: o.lightPreload ?? ['math', 'itertools', 'fractions', 'functools', 'collections', 'decimal', 're'],
    warmup: o.warmup ?? DEFAULT_WARMUP,
    maxOutputBytes: o.maxOutputBytes ?? 65_536,
    maxFileBytes: o.maxFileBytes ?? 16 * 1024 * 1024,
    tmpfsMb: o.tmpfsMb ?? 256,
    openFiles: o.openFiles ?? 256,
    maxProcesses: o.maxProcesses ?? 256,
    recycleAfter: o.recycleAfter ?? 1000,
    isolation: o.isolation ?? 'auto',
    hidePaths: o.hidePaths,
    onWarning: o.onWarning,
  };
}
