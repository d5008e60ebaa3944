import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How the local sandbox bounds memory as a whole (shared memory, memfds and forks included). */
export type MemoryControl = 'cgroup-v2' | 'cgroup-v1' | 'rlimit';

/**
 * Memory cgroups of one local sandbox: a group `agentrl-<instance>` under the trainer's own memory
 * cgroup, holding one leaf per worker (server, zygotes and the call running) and one per session.
 * Pages of tmpfs files, memfds and System V / POSIX shared memory are charged to the cgroup of the
 * process that touched them, so a leaf's limit bounds them with everything else; the kernel's OOM
 * killer then kills a process of that leaf (call processes carry `oom_score_adj` 1000, so a call or
 * session is chosen before the worker's server or zygotes).
 */
export interface MemoryCgroups {
  readonly kind: 'cgroup-v2' | 'cgroup-v1';
  /** Absolute path of the group directory. */
  readonly group: string;
  /** Creates (or reuses) leaf `name` with limit `bytes` (0 = none); returns its directory. @throws the `fs` error */
  leaf(name: string, bytes: number): string;
  /** Sets a leaf's limit, bytes (memory and memory+swap: no swapping around it). @throws the `fs` error */
  setLimit(leaf: string, bytes: number): void;
  /** Bytes charged to a leaf now (0 when unreadable). */
  usage(leaf: string): number;
  /** Host pids in a leaf. */
  pids(leaf: string): number[];
  /** Moves host pid `pid` into a leaf. @throws the `fs` error */
  addPid(leaf: string, pid: number): void;
  /** Removes a leaf; false when it still holds processes (or is gone). */
  removeLeaf(leaf: string): boolean;
  /** Removes every leaf that is empty, then the group; false when something is left. */
  removeAll(): boolean;
}

const V2_ROOTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'];

function tryWrite(path: string, data: string): boolean {
  try {
    writeFileSync(path, data);
    return true;
  } catch {
    return false;
  }
}

function readNum(path: string): number {
  try {
    const n = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(n) ? n : 0;
  } catch {
    return 0;
  }
}

function makeGroup(kind: MemoryCgroups['kind'], group: string): MemoryCgroups {
  const v2 = kind === 'cgroup-v2';
  const setLimit = (leaf: string, bytes: number): void => {
    if (v2) {
      writeFileSync(join(leaf, 'memory.max'), bytes > 0 ? String(bytes) : 'max');
      tryWrite(join(leaf, 'memory.swap.max'), '0');
    } else {
      const lim = bytes > 0 ? String(bytes) : '-1';
      // memsw must stay >= the memory limit: raise it first when growing, lower it after when shrinking.
      const memsw = join(leaf, 'memory.memsw.limit_in_bytes');
      const hasMemsw = existsSync(memsw);
      if (hasMemsw && bytes <= 0) tryWrite(memsw, lim);
      if (!tryWrite(join(leaf, 'memory.limit_in_bytes'), lim)) {
        if (hasMemsw) tryWrite(memsw, lim);
        writeFileSync(join(leaf, 'memory.limit_in_bytes'), lim);
      }
      if (hasMemsw && bytes > 0) tryWrite(memsw, lim);
    }
  };
  const pids = (leaf: string): number[] => {
    try {
      return readFileSync(join(leaf, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const removeLeaf = (leaf: string): boolean => {
    try {
      rmdirSync(leaf);
      return true;
    } catch {
      return false;
    }
  };
  return {
    kind,
    group,
    leaf(name, bytes) {
      const dir = join(group, name);
      mkdirSync(dir, { recursive: true });
      setLimit(dir, bytes);
      return dir;
    },
    setLimit,
    usage: (leaf) => readNum(join(leaf, v2 ? 'memory.current' : 'memory.usage_in_bytes')),
    pids,
    addPid: (leaf, pid) => writeFileSync(join(leaf, 'cgroup.procs'), String(pid)),
    removeLeaf,
    removeAll() {
      let entries: string[] = [];
      try {
        entries = readdirSync(group, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
      } catch {
        return true;
      }
      for (const e of entries) removeLeaf(join(group, e));
      return removeLeaf(group);
    },
  };
}

/** The trainer's own cgroup path for `controller` (v1) or the unified one (`''`), from /proc/self/cgroup. */
function ownCgroup(controller: string): string | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const i1 = line.indexOf(':');
    const i2 = line.indexOf(':', i1 + 1);
    if (i1 < 0 || i2 < 0) continue;
    const id = line.slice(0, i1);
    const ctrls = line.slice(i1 + 1, i2);
    const path = line.slice(i2 + 1);
    if (controller === '' ? id === '0' && ctrls === '' : ctrls.split(',').includes(controller)) return path;
  }
  return undefined;
}

/**
 * Creates the memory cgroup group of sandbox `instanceId`: cgroup v2 when its memory controller can
 * be delegated below the trainer's cgroup, else cgroup v1's memory hierarchy, else a reason (e.g. not
 * root and no delegated cgroup, or no memory controller at all).
 */
export function openMemoryCgroups(instanceId: string): MemoryCgroups | { reason: string } {
  const reasons: string[] = [];
  const v2path = ownCgroup('');
  if (v2path !== undefined) {
    for (const root of V2_ROOTS) {
      const parent = join(root, v2path);
      const ctrl = join(parent, 'cgroup.controllers');
      if (!existsSync(ctrl)) continue;
      if (!readFileSync(ctrl, 'utf8').split(/\s+/).includes('memory')) {
        reasons.push(`cgroup v2 at ${parent}: no memory controller`);
        continue;
      }
      const subtree = join(parent, 'cgroup.subtree_control');
      const enabled = () => readFileSync(subtree, 'utf8').split(/\s+/).includes('memory');
      if (!enabled() && !tryWrite(subtree, '+memory')) {
        reasons.push(`cgroup v2 at ${parent}: cannot enable the memory controller below it (not delegated, or it holds processes)`);
        continue;
      }
      const group = join(parent, instanceId);
      try {
        mkdirSync(group);
        writeFileSync(join(group, 'cgroup.subtree_control'), '+memory');
        return makeGroup('cgroup-v2', group);
      } catch (e) {
        try {
          rmdirSync(group);
        } catch {
          /* not created */
        }
        reasons.push(`cgroup v2 at ${parent}: ${(e as Error).message}`);
      }
    }
  }
  const v1path = ownCgroup('memory');
  if (v1path !== undefined && existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes')) {
    const group = join('/sys/fs/cgroup/memory', v1path, instanceId);
    try {
      mkdirSync(group);
      return makeGroup('cgroup-v1', group);
    } catch (e) {
      reasons.push(`cgroup v1 memory: ${(e as Error).message}`);
    }
  }
  return { reason: reasons.length ? reasons.join('; ') : 'no memory cgroup controller found' };
}

/**
 * Host pid of the process whose pid is `nsPid` in the PID namespace of the worker whose processes
 * fill `leaf` (the worker's server sees its session processes by such pids; with `isolated` false
 * the server shares the host's PID namespace). Reads the `NSpid` line
 * of each process of the leaf; `undefined` when none matches.
 */
export function hostPidIn(cg: MemoryCgroups, leaf: string, nsPid: number, isolated: boolean): number | undefined {
  for (const pid of cg.pids(leaf)) {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      continue;
    }
    const m = /^NSpid:\s*(.*)$/m.exec(status);
    const ids = m?.[1]?.trim().split(/\s+/).map(Number) ?? [];
    // host, bwrap's namespace (the server's view), then the call's own namespace (where it is 1);
    // without isolation the server sees host pids.
    if (ids[isolated ? 1 : 0] === nsPid) return pid;
  }
  return undefined;
}
