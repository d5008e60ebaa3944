import { z } from '../../src/util/zod.js';
import type Docker from 'dockerode';
import { ConfigError } from '../../src/errors/config-error.js';
import { DEFAULT_WARMUP } from '../local/options.js';

/** Options of {@link dockerSandbox}. Every size is in MiB or bytes as named; every time in ms. */
export interface DockerSandboxOptions {
  /** Image with a Python 3 interpreter at `python`. Build the test image with `scripts/docker-image.sh`. */
  readonly image: string;
  /** Warm containers kept ready; also the maximum number of concurrent calls. @default 2 */
  readonly poolSize?: number;
  /** Container memory limit in MiB (`Memory` = `MemorySwap`, so no swap). @default 512 */
  readonly memoryMb?: number;
  /** CPU share per container (`NanoCpus` = cpus × 1e9). @default 1 */
  readonly cpus?: number;
  /** Maximum processes/threads per container (`PidsLimit`). @default 64 */
  readonly pidsLimit?: number;
  /** Size of the writable `/tmp` tmpfs in MiB. @default 64 */
  readonly tmpfsMb?: number;
  /** Network access for model code. Only `false` is supported (`NetworkMode: 'none'`). @default false */
  readonly network?: false;
  /** Default per-call wall-clock limit in ms (a request's `timeoutMs` overrides it). @default 10000 */
  readonly timeoutMs?: number;
  /** Bytes kept per stream (stdout, stderr): the first and last halves around a `[... N bytes truncated ...]` marker. @default 65536 */
  readonly maxOutputBytes?: number;
  /** Total output bytes (both streams) after which a call is killed as `output_limit`. @default 16 MiB */
  readonly killAfterOutputBytes?: number;
  /** Retire a container after this many calls. @default 1000 */
  readonly recycleAfter?: number;
  /** Modules the runner imports once so calls start warm. @default ['math', 'fractions', 'itertools', 'numpy', 'sympy'] */
  readonly preload?: readonly string[];
  /**
   * Python run once in each runner after `preload` (output discarded, errors ignored) so lazily
   * loaded parts of sympy/numpy are warm in every forked call. `''` disables it.
   * @default the local sandbox's `DEFAULT_WARMUP`
   */
  readonly warmup?: string;
  /** Interpreter inside the image. @default '/usr/bin/python3' */
  readonly python?: string;
  /** Extra bind mounts, Docker syntax `host:container[:ro]` (e.g. `['/usr:/usr:ro']` for the local test image). Paths are on the Docker host. @default [] */
  readonly binds?: readonly string[];
  /** Environment of model code; replaces the default allowlist entirely when given. */
  readonly env?: Readonly<Record<string, string>>;
  /** Container runtime (e.g. `'runsc'` for gVisor). @default Docker's default */
  readonly runtime?: string;
  /** Time allowed for a new container's runner to report ready, ms. @default 30000 */
  readonly startTimeoutMs?: number;
  /** Extra wall time past a call's deadline before the host kills the container itself, ms. @default 3000 */
  readonly backstopGraceMs?: number;
  /** Docker client; defaults to `new Docker()`, which honours `DOCKER_HOST`, `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`. */
  readonly docker?: Docker;
}

/** {@link DockerSandboxOptions} with every default filled in. */
export type ResolvedDockerOptions = Required<Omit<DockerSandboxOptions, 'docker' | 'runtime' | 'env' | 'network'>> & {
  readonly runtime: string | undefined;
  readonly env: Readonly<Record<string, string>>;
};

/** Default environment of model code: no secrets, single-threaded BLAS. */
export const DEFAULT_SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/tmp/work',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONIOENCODING: 'utf-8',
  PYTHONDONTWRITEBYTECODE: '1',
  OMP_NUM_THREADS: '1',
  OPENBLAS_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
  NUMEXPR_NUM_THREADS: '1',
};

const positiveInt = z.number().int().positive();
const schema = z.strictObject({
  image: z.string().min(1),
  poolSize: positiveInt.max(256).optional(),
  memoryMb: z.number().int().min(16).optional(),
  cpus: z.number().positive().max(256).optional(),
  pidsLimit: z.number().int().min(8).optional(),
  tmpfsMb: z.number().int().min(1).optional(),
  network: z.literal(false).optional(),
  timeoutMs: positiveInt.optional(),
  maxOutputBytes: positiveInt.optional(),
  killAfterOutputBytes: positiveInt.optional(),
  recycleAfter: positiveInt.optional(),
  preload: z.array(z.string().regex(/^[A-Za-z_][\w.]*$/)).optional(),
  warmup: z.string().optional(),
  python: z.string().min(1).optional(),
  binds: z.array(z.string().min(3)).optional(),
  env: z.record(z.string(), z.string()).optional(),
  runtime: z.string().min(1).optional(),
  startTimeoutMs: positiveInt.optional(),
  backstopGraceMs: z.number().int().min(0).optional(),
  docker: z.unknown().optional(),
});

/**
 * Validates and fills defaults.
 * @throws ConfigError listing every bad key as a dotted path (`docker.poolSize`, …).
 */
export function resolveDockerOptions(opts: DockerSandboxOptions): ResolvedDockerOptions {
  const parsed = schema.safeParse(opts);
  if (!parsed.success) {
    throw new ConfigError(
      'dockerSandbox options',
      parsed.error.issues.map((i) => ({ path: ['docker', ...i.path.map(String)].join('.'), message: i.message })),
    );
  }
  const maxOutputBytes = opts.maxOutputBytes ?? 65_536;
  return {
    image: opts.image,
    poolSize: opts.poolSize ?? 2,
    memoryMb: opts.memoryMb ?? 512,
    cpus: opts.cpus ?? 1,
    pidsLimit: opts.pidsLimit ?? 64,
    tmpfsMb: opts.tmpfsMb ?? 64,
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxOutputBytes,
    killAfterOutputBytes: opts.killAfterOutputBytes ?? 16 * 1024 * 1024,
    recycleAfter: opts.recycleAfter ?? 1000,
    preload: opts.preload ?? ['math', 'fractions', 'itertools', 'numpy', 'sympy'],
    warmup: opts.warmup ?? DEFAULT_WARMUP,
    python: opts.python ?? '/usr/bin/python3',
    binds: opts.binds ?? [],
    env: opts.env ?? DEFAULT_SANDBOX_ENV,
    runtime: opts.runtime,
    startTimeoutMs: opts.startTimeoutMs ?? 30_000,
    backstopGraceMs: opts.backstopGraceMs ?? 3000,
  };
}
