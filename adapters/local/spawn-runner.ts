import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecResult, RunRequest } from '../../src/types/exec-result.js';
import { classifyOutcome, readCappedFile, renderCapped, sandboxErrorResult } from '../../src/sandbox/index.js';
import type { ResolvedLocalOptions } from './options.js';
import { PYTHON_RUNTIME_SOURCE } from './python/sources.js';
import { CHILD_ENV, bwrapArgs, sandboxRoots, type RunAs } from './isolation.js';
import { cpuSecondsFor, outputFlooded } from './fork-server.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** How often the parent checks the output files for a flood, ms. */
const FLOOD_POLL_MS = 50;

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Reference path: a fresh `python -I` per call (inside a fresh bubblewrap sandbox when `bwrap`
 * is set), argv without a shell, new process group, code on fd 3, stdout/stderr to per-call temp
 * files read back with the byte cap, SIGKILL of the group (and so of the PID namespace) at the
 * deadline or when its output files together reach `maxFileBytes`.
 */
export async function runSpawned(
  opts: ResolvedLocalOptions,
  iso: { bwrap: string | undefined; runAs: RunAs | undefined; hide: readonly string[]; instanceId: string },
  req: RunRequest,
  signal?: AbortSignal,
): Promise<ExecResult> {
  if (signal?.aborted) throw abortError(signal);
  const timeoutMs = req.timeoutMs ?? opts.timeoutMs;
  const dir = await mkdtemp(join(tmpdir(), 'agentrl-call-'));
  const fds: number[] = [];
  try {
    const codePath = join(dir, 'code.py');
    writeFileSync(codePath, req.code);
    const outPath = join(dir, 'stdout');
    const errPath = join(dir, 'stderr');
    const outFd = openSync(outPath, 'w');
    fds.push(outFd);
    const errFd = openSync(errPath, 'w');
    fds.push(errFd);
    const codeFd = openSync(codePath, 'r');
    fds.push(codeFd);
    let inFd: number | 'ignore' = 'ignore';
    if (req.stdin !== undefined) {
      writeFileSync(join(dir, 'stdin'), req.stdin);
      inFd = openSync(join(dir, 'stdin'), 'r');
      fds.push(inFd);
    }
    const workdir = iso.bwrap ? '/tmp/work' : join(dir, 'work');
    const pyCfg = JSON.stringify({
      mode: 'once',
      isolate: iso.bwrap !== undefined,
      cpuS: cpuSecondsFor(timeoutMs),
      workdir,
      memoryMb: opts.memoryMb,
      fileBytes: opts.maxFileBytes,
      openFiles: opts.openFiles,
      maxProcesses: opts.maxProcesses,
      env: CHILD_ENV,
      instance: iso.instanceId,
      denyMemfd: opts.memoryMb > 0,
    });
    const py = [opts.python, '-I', '-c', PYTHON_RUNTIME_SOURCE, pyCfg];
    const [cmd, args] = iso.bwrap ? [iso.bwrap, [...bwrapArgs('spawn', iso.hide, sandboxRoots(opts.python)), ...py]] : [py[0]!, py.slice(1)];
    const started = performance.now();
    const child = spawn(cmd, args, {
      stdio: [inFd, outFd, errFd, codeFd],
      detached: true,
      env: iso.bwrap ? {} : { ...CHILD_ENV },
      cwd: dir,
      ...(iso.bwrap && iso.runAs ? iso.runAs : {}),
    });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    let timedOut = false;
    let flooded = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const poll = setInterval(() => {
      if (outputFlooded(fstatSync(outFd).size, fstatSync(errFd).size, opts.maxFileBytes)) {
        flooded = true;
        killGroup();
      }
    }, FLOOD_POLL_MS);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const unwatch = watchAbort(signal, onAbort);
    const exit = await new Promise<{ code: number | null; sig: string | null } | Error>((resolve) => {
      child.once('error', (e) => resolve(e));
      child.once('exit', (code, sig) => resolve({ code, sig }));
    });
    const wallMs = performance.now() - started;
    clearTimeout(timer);
    clearInterval(poll);
    unwatch();
    killGroup(); // leftovers of the group (without bwrap) die with the call
    if (aborted && signal) throw abortError(signal);
    if (exit instanceof Error) return sandboxErrorResult(`failed to start ${cmd}: ${exit.message}`, wallMs);
    const stdout = renderCapped(readCappedFile(outPath, opts.maxOutputBytes));
    const stderr = renderCapped(readCappedFile(errPath, opts.maxOutputBytes));
    // bwrap reports its own setup failures with exit code 1 and a "bwrap:" message on stderr.
    if (iso.bwrap && exit.code === 1 && stderr.text.startsWith('bwrap:')) {
      return sandboxErrorResult(`sandbox setup failed: ${stderr.text}`, wallMs);
    }
    return classifyOutcome({
      timedOut,
      outputLimited: flooded || outputFlooded(stdout.totalBytes, stderr.totalBytes, opts.maxFileBytes),
      exitCode: exit.code,
      signal: exit.sig,
      stdout,
      stderr,
      wallMs,
    });
  } finally {
    for (const fd of fds) {
      try {
        closeSync(fd);
      } catch {
        /* closed */
      }
    }
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
