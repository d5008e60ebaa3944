import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';

/** Environment every child gets (nothing else from the trainer's env is passed). */
export const CHILD_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONIOENCODING: 'utf-8',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONHASHSEED: '0',
  OMP_NUM_THREADS: '1',
  OPENBLAS_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
  NUMEXPR_NUM_THREADS: '1',
  VECLIB_MAXIMUM_THREADS: '1',
  MPLBACKEND: 'Agg',
};

/** Which flavour of bubblewrap sandbox to build. */
export type BwrapFlavour = 'zygote' | 'spawn';

/** Finds `bwrap` on the usual paths; `undefined` when absent. */
export function findBwrap(): string | undefined {
  for (const p of ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap']) if (existsSync(p)) return p;
  return undefined;
}

const SYSTEM_DIRS = /^\/(usr|lib|lib32|lib64|bin|sbin|etc|proc|sys|dev|run|var\/lib)(\/|$)/;

/** The trainer's working directory (its project, data and checkpoints), unless it is `/` or a system directory the interpreter needs. */
function trainerWorkdir(): string[] {
  const cwd = process.cwd();
  return cwd === '/' || SYSTEM_DIRS.test(cwd) ? [] : [cwd];
}

/** Paths to hide (existing ones), minus any that holds the Python binary (hiding it would break it). */
export function pathsToHide(python: string, requested: readonly string[] | undefined): { hide: string[]; kept: string[] } {
  const wanted = requested ?? [homedir(), '/root', '/home', ...trainerWorkdir()];
  let real = python;
  try {
    real = realpathSync(python);
  } catch {
    /* probe will report a missing python */
  }
  const hide: string[] = [];
  const kept: string[] = [];
  for (const p of new Set(wanted)) {
    if (!existsSync(p) || p === '/') continue;
    if (real.startsWith(p.endsWith('/') ? p : `${p}/`)) kept.push(p);
    else hide.push(p);
  }
  return { hide, kept };
}

/** Host directories every sandbox sees read-only: the system's programs, libraries and configuration. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/sys'];

const rootsCache = new Map<string, string[]>();

const isUnder = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * What a sandbox sees of the host, read-only: {@link SYSTEM_ROOTS} plus the Python installation
 * (its prefixes and `sys.path`, asked of the interpreter once), nothing else. The rest of the host
 * (projects and datasets under `/work`, `/srv`, `/var`, `/opt`, `/mnt`, home directories, `/run`)
 * is absent, so model code cannot read a dataset's answers wherever the trainer was started.
 */
export function sandboxRoots(python: string): string[] {
  const hit = rootsCache.get(python);
  if (hit) return hit;
  const extra: string[] = [];
  try {
    extra.push(dirname(realpathSync(python)));
  } catch {
    /* probe will report a missing python */
  }
  const r = spawnSync(
    python,
    ['-I', '-c', 'import json, sys; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix] + sys.path))'],
    {
      encoding: 'utf8',
      timeout: 20_000,
      env: {},
    },
  );
  if (r.status === 0) {
    try {
      for (const p of JSON.parse(r.stdout) as unknown[]) if (typeof p === 'string' && p.startsWith('/') && existsSync(p)) extra.push(realpathSync(p));
    } catch {
      /* keep the system roots */
    }
  }
  const roots: string[] = [];
  for (const p of [...SYSTEM_ROOTS.filter((d) => existsSync(d)), ...extra]) {
    if (p === '/' || roots.some((q) => isUnder(p, q))) continue;
    for (let i = roots.length - 1; i >= 0; i--) if (isUnder(roots[i]!, p)) roots.splice(i, 1);
    roots.push(p);
  }
  rootsCache.set(python, roots);
  return roots;
}

/**
 * bubblewrap arguments (up to and excluding the command). Both flavours: new user, PID, net, IPC
 * and UTS namespaces; `--die-with-parent --new-session`; read-only binds of `roots` (see
 * {@link sandboxRoots}) and nothing else of the host; fresh read-only `/dev`, fresh `/proc`, tmpfs
 * `/tmp`; hidden paths inside the roots under empty read-only tmpfs; env cleared to {@link CHILD_ENV}.
 * `zygote` keeps CAP_SYS_ADMIN/CAP_SETPCAP *inside the new user namespace* so the zygote can make a
 * PID + mount namespace per call; each call process drops every capability before user code runs.
 * `spawn` runs as uid 65534 with no capabilities, cwd `/tmp/work`.
 */
export function bwrapArgs(flavour: BwrapFlavour, hide: readonly string[], roots: readonly string[]): string[] {
  const a = ['--unshare-user'];
  if (flavour === 'zygote') a.push('--uid', '0', '--gid', '0', '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP');
  else a.push('--uid', '65534', '--gid', '65534');
  a.push('--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  a.push('--die-with-parent', '--new-session', '--hostname', 'sandbox');
  for (const r of roots) {
    let link: string | undefined;
    try {
      link = lstatSync(r).isSymbolicLink() ? readlinkSync(r) : undefined;
    } catch {
      continue;
    }
    if (link !== undefined)
      a.push('--symlink', link, r); // merged /usr: /bin -> usr/bin
    else a.push('--ro-bind', r, r);
  }
  a.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // /run would hold the host's Unix sockets: an empty directory. Paths to hide inside the roots get an
  // empty tmpfs. bwrap's own root, /dev and these tmpfs mounts are then read-only, so a call cannot
  // leave files in them for the next call of the same worker (calls get their own /tmp and /dev/shm).
  const empty = ['/run', ...hide.filter((h) => roots.some((r) => isUnder(h, r) && h !== r))];
  for (const p of empty) a.push('--tmpfs', p);
  if (flavour === 'spawn') a.push('--tmpfs', '/dev/shm');
  for (const p of ['/', '/dev', ...empty]) a.push('--remount-ro', p);
  if (flavour === 'spawn') a.push('--dir', '/tmp/work', '--chdir', '/tmp/work');
  else a.push('--chdir', '/tmp');
  a.push('--clearenv');
  for (const [k, v] of Object.entries(CHILD_ENV)) a.push('--setenv', k, v);
  return a;
}

/** Host user and group the sandbox's processes run as (set with `spawn`'s `uid`/`gid`). */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** The unprivileged host account a root trainer's sandboxes run as (`nobody` on Debian and most distributions). */
export const SANDBOX_HOST_ID: RunAs = { uid: 65534, gid: 65534 };

/**
 * Result of checking that bubblewrap can build the sandbox here. `runAs` is set when the trainer
 * runs as root and the sandbox works as {@link SANDBOX_HOST_ID}; `rootReason` says why not when it
 * had to stay root.
 */
export type ProbeResult = { ok: true; bwrap: string; runAs?: RunAs; rootReason?: string } | { ok: false; reason: string };

const probeCache = new Map<string, ProbeResult>();

function tryBwrap(bwrap: string, python: string, hide: readonly string[], runAs: RunAs | undefined): string | undefined {
  const r = spawnSync(
    bwrap,
    [...bwrapArgs('zygote', hide, sandboxRoots(python)), python, '-I', '-c', 'import os; os.unshare if hasattr(os, "unshare") else None'],
    {
      env: {},
      timeout: 20_000,
      encoding: 'utf8',
      cwd: '/',
      ...(runAs ?? {}),
    },
  );
  return r.status === 0 ? undefined : `bwrap failed (${r.status ?? r.signal}): ${(r.stderr ?? String(r.error)).trim().slice(0, 300)}`;
}

/**
 * Runs the real sandbox once (`python -I -c pass` under the zygote flavour, which needs the most:
 * user namespace with in-namespace capabilities). A root trainer's sandbox is tried first as
 * {@link SANDBOX_HOST_ID}: inside a user namespace, uid 0 is still the host's root for file
 * permissions (root-only files, Unix sockets such as Docker's) and is exempt from `RLIMIT_NPROC`.
 * Cached per python path and hidden paths.
 */
export function probeBwrap(python: string, hide: readonly string[]): ProbeResult {
  const key = `${python}\0${hide.join('\0')}`;
  const hit = probeCache.get(key);
  if (hit) return hit;
  const bwrap = findBwrap();
  let res: ProbeResult;
  if (!bwrap) res = { ok: false, reason: 'bubblewrap (bwrap) not found; install the `bubblewrap` package' };
  else if (process.getuid?.() === 0) {
    const asNobody = tryBwrap(bwrap, python, hide, SANDBOX_HOST_ID);
    if (asNobody === undefined) res = { ok: true, bwrap, runAs: SANDBOX_HOST_ID };
    else {
      const asRoot = tryBwrap(bwrap, python, hide, undefined);
      res = asRoot === undefined ? { ok: true, bwrap, rootReason: asNobody } : { ok: false, reason: asRoot };
    }
  } else {
    const err = tryBwrap(bwrap, python, hide, undefined);
    res = err === undefined ? { ok: true, bwrap } : { ok: false, reason: err };
  }
  probeCache.set(key, res);
  return res;
}

/** Names of the protections that are off when running without bubblewrap. */
export const PROTECTIONS_OFF_WITHOUT_BWRAP =
  'PID namespace (a setsid() daemon can outlive the call; code can signal same-uid processes, the trainer included), ' +
  'network namespace (network is reachable), read-only filesystem and private /tmp (code can write wherever the trainer user can), hidden home dirs';
