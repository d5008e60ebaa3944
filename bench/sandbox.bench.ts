/**
 * Sandbox benchmark: a fixed mix of ReTool-like snippets through several sandboxes side by side,
 * at the same concurrency, plus a timeout-enforcement check.
 *
 *   npm run bench:sandbox -- [--rounds 5] [--concurrency 2] [--trajectories 24] [--sessions-only] [--json out.json]
 *
 * Session mode (issue 20): trajectories of 4 calls, each in one session of the local fork-server,
 * vs the same trajectories through the seed's fresh `python` per call (see session-mode.ts).
 *
 * Other backends (docker, remote, isolated-vm) are appended by calling {@link benchSandboxes}
 * with more entries.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import type { ExecResult, RunRequest, Sandbox } from '../src/types/exec-result.js';
import { classifyOutcome, readCappedFile, renderCapped } from '../src/sandbox/index.js';
import { localSandbox } from '../adapters/local/index.js';
import { benchTrajectories, printSessionRows } from './session-mode.js';

/** One snippet of the mix. */
export interface Snippet {
  readonly name: string;
  readonly code: string;
}

/** The fixed ReTool-like mix (one call each per round). */
export const RETOOL_MIX: readonly Snippet[] = [
  { name: 'arithmetic', code: 'a = 3**40 + 7 * 11\nprint(a % 1000003, (a // 97) % 13)' },
  { name: 'sympy', code: 'import sympy as sp\nx = sp.symbols("x")\nprint(sp.factor(x**4 - 1), sp.solve(x**2 - 5*x + 6, x))' },
  { name: 'numpy', code: 'import numpy as np\na = np.arange(64.0).reshape(8, 8)\nprint(float((a @ a.T).trace()))' },
  { name: 'itertools', code: 'import itertools\nprint(sum(1 for p in itertools.permutations(range(6)) if p[0] < p[-1]))' },
  { name: 'fractions', code: 'from fractions import Fraction\nprint(sum(Fraction(1, k * (k + 1)) for k in range(1, 200)))' },
  { name: 'raises', code: 'def f(n):\n    return 10 // n\nprint(f(0))' },
];

/** A sandbox under test with its display name. */
export interface NamedSandbox {
  readonly name: string;
  readonly sandbox: Sandbox;
}

/** Figures of one sandbox on the mix. */
export interface BenchRow {
  readonly name: string;
  readonly calls: number;
  readonly callsPerSec: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Median end-to-end latency per snippet, ms. */
  readonly perSnippetMedianMs: Record<string, number>;
  /** Median child CPU time per call, ms, when the backend reports `cpuMs` (less load-sensitive than wall time). */
  readonly cpuMedianMs: number | undefined;
  /** Calls whose status differed from the expected one (`raises` → error, others → ok). */
  readonly wrong: number;
  /** Wall time of `while True: pass` with `timeoutMs: 1000`, ms (end-to-end). */
  readonly timeoutReturnMs: number;
  readonly timeoutStatus: string;
}

const quantile = (xs: readonly number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};

/**
 * Runs `rounds` × the mix through each sandbox in turn (same `concurrency` for all; one warm-up
 * round first, not counted), then the timeout check. Latency is end-to-end `run()` time with no
 * queueing in front (the harness keeps exactly `concurrency` calls in flight).
 */
export async function benchSandboxes(
  list: readonly NamedSandbox[],
  opts: { rounds: number; concurrency: number; mix?: readonly Snippet[] },
): Promise<BenchRow[]> {
  const mix = opts.mix ?? RETOOL_MIX;
  const rows: BenchRow[] = [];
  for (const { name, sandbox } of list) {
    const limit = pLimit(opts.concurrency);
    await Promise.all(mix.map((s) => limit(() => sandbox.run({ code: s.code }))));
    const jobs = Array.from({ length: opts.rounds }, () => mix).flat();
    const lat: { snippet: string; ms: number; r: ExecResult }[] = [];
    const t0 = performance.now();
    await Promise.all(
      jobs.map((s) =>
        limit(async () => {
          const t = performance.now();
          const r = await sandbox.run({ code: s.code });
          lat.push({ snippet: s.name, ms: performance.now() - t, r });
        }),
      ),
    );
    const totalS = (performance.now() - t0) / 1000;
    const per: Record<string, number> = {};
    for (const s of mix)
      per[s.name] = quantile(
        lat.filter((l) => l.snippet === s.name).map((l) => l.ms),
        0.5,
      );
    const tt = performance.now();
    const tr = await sandbox.run({ code: 'while True:\n    pass', timeoutMs: 1000 });
    rows.push({
      name,
      calls: jobs.length,
      callsPerSec: jobs.length / totalS,
      p50Ms: quantile(
        lat.map((l) => l.ms),
        0.5,
      ),
      p95Ms: quantile(
        lat.map((l) => l.ms),
        0.95,
      ),
      perSnippetMedianMs: per,
      cpuMedianMs: lat.some((l) => l.r.cpuMs !== undefined)
        ? quantile(
            lat.map((l) => l.r.cpuMs ?? NaN).filter((x) => !Number.isNaN(x)),
            0.5,
          )
        : undefined,
      wrong: lat.filter((l) => l.r.status !== (l.snippet === 'raises' ? 'error' : 'ok')).length,
      timeoutReturnMs: performance.now() - tt,
      timeoutStatus: tr.status,
    });
  }
  return rows;
}

/**
 * The seed's approach (ReTool chapter `LocalPythonSandbox.run_code`): a fresh `python -B -c
 * bootstrap` per call, whole parent env inherited (+ BLAS threads = 1), RLIMIT_CPU set by the
 * bootstrap, new session killed with killpg at the timeout, stdout/stderr to temp files, a
 * semaphore for concurrency. No namespaces. Reference point only; never use it for real.
 */
export function seedApproachSandbox(opts: { python: string; workers: number; timeoutMs: number }): Sandbox {
  const limit = pLimit(opts.workers);
  const boot = (cpu: number) =>
    `import resource, sys\nresource.setrlimit(resource.RLIMIT_CPU, (${cpu}, ${cpu}))\nexec(compile(sys.stdin.read(), '<sandbox>', 'exec'))`;
  const runOne = async (req: RunRequest): Promise<ExecResult> => {
    const timeoutMs = req.timeoutMs ?? opts.timeoutMs;
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-seed-'));
    const inPath = join(dir, 'code');
    writeFileSync(inPath, req.code);
    const fds = [openSync(inPath, 'r'), openSync(join(dir, 'out'), 'w'), openSync(join(dir, 'err'), 'w')] as const;
    try {
      const t = performance.now();
      const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1', VECLIB_MAXIMUM_THREADS: '1' };
      const child = spawn(opts.python, ['-B', '-c', boot(Math.floor(timeoutMs / 1000) + 5)], { stdio: [...fds], detached: true, env });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, timeoutMs);
      const [code, sig] = await new Promise<[number | null, NodeJS.Signals | null]>((res) => child.once('exit', (c, s) => res([c, s])));
      clearTimeout(timer);
      const wallMs = performance.now() - t;
      return classifyOutcome({
        timedOut,
        outputLimited: false,
        exitCode: code,
        signal: sig,
        stdout: renderCapped(readCappedFile(join(dir, 'out'), 4096)),
        stderr: renderCapped(readCappedFile(join(dir, 'err'), 4096)),
        wallMs,
      });
    } finally {
      for (const fd of fds) closeSync(fd);
      await rm(dir, { recursive: true, force: true });
    }
  };
  return { name: 'seed', run: (req) => limit(() => runOne(req)), close: async () => {} };
}

/**
 * How process start-up scales on this machine: `/bin/true` spawned `n` times from Node, one at a
 * time and `concurrency` at a time. Every sandbox call here creates at least one address space,
 * so this bounds what any process-per-call sandbox can reach (on a paravirtualised VM with
 * shadow page tables, creating and tearing down address spaces on two vCPUs at once can be
 * slower in aggregate than on one).
 */
export async function processStartProbe(concurrency: number, n = 40): Promise<{ soloMs: number; parallelMs: number; speedup: number }> {
  const once = () => new Promise<void>((res) => spawn('/bin/true', [], { stdio: 'ignore' }).once('exit', () => res()));
  const timed = async (c: number) => {
    const limit = pLimit(c);
    const t = performance.now();
    await Promise.all(Array.from({ length: n }, () => limit(once)));
    return (performance.now() - t) / n;
  };
  await timed(1);
  const solo = await timed(1);
  const par = await timed(concurrency);
  return { soloMs: solo, parallelMs: par * concurrency, speedup: solo / par };
}

/** Per-snippet median latency with one call at a time and an idle gap before each (what a lone rollout sees), ms. */
export async function unloadedLatency(
  sandbox: Sandbox,
  rounds: number,
  mix: readonly Snippet[] = RETOOL_MIX,
): Promise<{ p50: number; per: Record<string, number> }> {
  const all: number[] = [];
  const per: Record<string, number> = {};
  for (const s of mix) {
    const xs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      await new Promise((r) => setTimeout(r, 40));
      const t = performance.now();
      await sandbox.run({ code: s.code });
      xs.push(performance.now() - t);
    }
    per[s.name] = quantile(xs, 0.5);
    all.push(...xs);
  }
  return { p50: quantile(all, 0.5), per };
}

function printRows(rows: readonly BenchRow[], baseline: string): void {
  const base = rows.find((r) => r.name === baseline);
  const snippets = Object.keys(rows[0]?.perSnippetMedianMs ?? {});
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    [
      pad('sandbox', 24),
      pad('calls/s', 9),
      pad('p50 ms', 8),
      pad('p95 ms', 8),
      pad('×thr', 7),
      ...snippets.map((s) => pad(s, 11)),
      'timeout ms',
      'wrong',
      'cpu ms p50',
    ].join(' '),
  );
  for (const r of rows) {
    console.log(
      [
        pad(r.name, 24),
        pad(r.callsPerSec.toFixed(1), 9),
        pad(r.p50Ms.toFixed(1), 8),
        pad(r.p95Ms.toFixed(1), 8),
        pad(base ? (r.callsPerSec / base.callsPerSec).toFixed(1) : '-', 7),
        ...snippets.map((s) => pad(r.perSnippetMedianMs[s]!.toFixed(1), 11)),
        `${r.timeoutReturnMs.toFixed(0)} (${r.timeoutStatus})`,
        pad(String(r.wrong), 5),
        r.cpuMedianMs === undefined ? '-' : r.cpuMedianMs.toFixed(1),
      ].join(' '),
    );
  }
  if (base) {
    console.log('\nper-snippet median speed-up vs', baseline);
    for (const r of rows) {
      if (r === base) continue;
      console.log(`  ${pad(r.name, 22)} ${snippets.map((s) => `${s} ×${(base.perSnippetMedianMs[s]! / r.perSnippetMedianMs[s]!).toFixed(1)}`).join('  ')}`);
    }
  }
}

async function main(): Promise<void> {
  const arg = (k: string, d: number): number => {
    const i = process.argv.indexOf(`--${k}`);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  const rounds = arg('rounds', 5);
  const concurrency = arg('concurrency', 2);
  const jsonAt = process.argv.indexOf('--json');
  const python = '/usr/bin/python3';
  const timeoutMs = 30_000;
  const list: NamedSandbox[] = [
    { name: 'seed (fresh python)', sandbox: seedApproachSandbox({ python, workers: concurrency, timeoutMs }) },
    { name: 'local spawn', sandbox: localSandbox({ mode: 'spawn', workers: concurrency, timeoutMs, python }) },
    { name: 'local fork-server', sandbox: localSandbox({ mode: 'fork-server', workers: concurrency, timeoutMs, python }) },
  ];
  for (const { sandbox } of list) {
    (sandbox as { on?: (e: 'warning', f: (w: unknown) => void) => void }).on?.('warning', (w) => console.warn('warning:', w));
  }
  const isolation = list.map((l) => `${l.name}: ${(l.sandbox as { isolation?: string }).isolation ?? 'none'}`).join(', ');
  console.log(
    `load average: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${availableParallelism()} CPUs`,
  );
  console.log(`sandbox bench: rounds=${rounds} (${rounds * RETOOL_MIX.length} calls each) concurrency=${concurrency} isolation: ${isolation}`);
  const sessionsOnly = process.argv.includes('--sessions-only');
  try {
    if (!sessionsOnly) await mainMix(list, { rounds, concurrency, jsonAt });
    const trajectories = arg('trajectories', 24);
    const t = { trajectories, callsPerTrajectory: 4, concurrency, mix: RETOOL_MIX };
    console.log(`
session mode: ${trajectories} trajectories × 4 calls, ${concurrency} trajectories at a time`);
    const sessionRows = [
      await benchTrajectories('seed (fresh python per call)', list[0]!.sandbox, { ...t, useSessions: false }),
      await benchTrajectories('local fork-server, per call', list[2]!.sandbox, { ...t, useSessions: false }),
      await benchTrajectories('local fork-server, session', list[2]!.sandbox, { ...t, useSessions: true }),
    ];
    printSessionRows(sessionRows, 'seed (fresh python per call)', 'local fork-server, session');
    console.log(`  memory control of the local sandbox: ${(list[2]!.sandbox as { memoryControl?: string }).memoryControl ?? '?'}`);
  } finally {
    await Promise.all(list.map((l) => l.sandbox.close()));
  }
}

async function mainMix(list: NamedSandbox[], o: { rounds: number; concurrency: number; jsonAt: number }): Promise<void> {
  const { rounds, concurrency, jsonAt } = o;
  {
    const rows = await benchSandboxes(list, { rounds, concurrency });
    printRows(rows, 'seed (fresh python)');
    const fs = rows.find((r) => r.name === 'local fork-server');
    const seed = rows.find((r) => r.name === 'seed (fresh python)');
    if (fs && seed) {
      console.log('\ntargets (issue 8):');
      console.log(`  throughput fork-server / seed = ${(fs.callsPerSec / seed.callsPerSec).toFixed(1)}× (target ≥ 10×)`);
      console.log(`  sympy median seed / fork-server = ${(seed.perSnippetMedianMs.sympy! / fs.perSnippetMedianMs.sympy!).toFixed(1)}× (target ≥ 30×)`);
      console.log(`  fork-server p50 = ${fs.p50Ms.toFixed(1)} ms (target ≤ 10 ms)`);
      for (const r of rows) console.log(`  ${r.name}: while True with timeoutMs 1000 returned in ${r.timeoutReturnMs.toFixed(0)} ms (target ≤ 1100)`);
    }
    const probe = await processStartProbe(concurrency);
    console.log(
      `\nthis machine: spawning /bin/true takes ${probe.soloMs.toFixed(1)} ms alone and ${probe.parallelMs.toFixed(1)} ms each with ${concurrency} at once ` +
        `(aggregate ${probe.speedup.toFixed(2)}× with ${concurrency} CPUs)`,
    );
    const fork = list.find((l) => l.name === 'local fork-server');
    if (fork) {
      const u = await unloadedLatency(fork.sandbox, rounds);
      console.log(
        `local fork-server, one call at a time (40 ms idle before each): p50 ${u.p50.toFixed(1)} ms; ` +
          Object.entries(u.per)
            .map(([k, v]) => `${k} ${v.toFixed(1)}`)
            .join(', '),
      );
    }
    if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify(rows, null, 2));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
