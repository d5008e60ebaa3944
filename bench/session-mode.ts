/**
 * Session mode of `npm run bench:sandbox`: trajectories of 4 calls (the ReTool mix, rotated), each
 * in one sandbox session (`openSession` → 4 × `run` → `close`), `concurrency` trajectories at a
 * time; the same trajectories through a sandbox without sessions (the seed's fresh `python` per
 * call) side by side, in one run.
 */
import pLimit from 'p-limit';
import type { ExecResult, Sandbox } from '../src/types/exec-result.js';
import type { Snippet } from './sandbox.bench.js';

/** Snippets that do no heavy work (no numpy/sympy): the per-call p50 goal (≤ 5 ms) is about these. */
export const LIGHT_SNIPPETS: readonly string[] = ['arithmetic', 'itertools', 'fractions', 'raises'];

/** Figures of one sandbox on the trajectory workload. */
export interface SessionBenchRow {
  readonly name: string;
  readonly trajectories: number;
  readonly calls: number;
  /** Calls per second over the whole run (session open and close included). */
  readonly callsPerSec: number;
  /** Per-call `run()` latency, ms. */
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Per-call p50 of the {@link LIGHT_SNIPPETS}, ms. */
  readonly lightP50Ms: number;
  /** p50 of calls after the first of their trajectory (the session is warm), ms. */
  readonly warmP50Ms: number;
  /** Median `openSession()` + `close()` time per trajectory, ms (0 without sessions). */
  readonly openCloseMs: number;
  /** Calls whose status differed from the expected one. */
  readonly wrong: number;
  /** Calls that reported `sessionReset` (should be 0: nothing here times out or crashes). */
  readonly resets: number;
}

const quantile = (xs: readonly number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};

/**
 * Runs `trajectories` trajectories of `callsPerTrajectory` calls (snippet `(t + i) mod mix`) through
 * `sandbox`: in a session each when `useSessions`, else as plain calls. One warm-up trajectory first.
 */
export async function benchTrajectories(
  name: string,
  sandbox: Sandbox,
  opts: { trajectories: number; callsPerTrajectory: number; concurrency: number; useSessions: boolean; mix: readonly Snippet[] },
): Promise<SessionBenchRow> {
  const lat: { snippet: string; ms: number; index: number; r: ExecResult }[] = [];
  const openClose: number[] = [];
  const trajectory = async (t: number, record: boolean): Promise<void> => {
    let s: Pick<Sandbox, 'run' | 'close'> = sandbox;
    let oc = 0;
    if (opts.useSessions) {
      const t0 = performance.now();
      s = await sandbox.openSession!();
      oc += performance.now() - t0;
    }
    for (let i = 0; i < opts.callsPerTrajectory; i++) {
      const snip = opts.mix[(t + i) % opts.mix.length]!;
      const t0 = performance.now();
      const r = await s.run({ code: snip.code });
      if (record) lat.push({ snippet: snip.name, ms: performance.now() - t0, index: i, r });
    }
    if (opts.useSessions) {
      const t0 = performance.now();
      await s.close();
      oc += performance.now() - t0;
      if (record) openClose.push(oc);
    }
  };
  await trajectory(0, false);
  const limit = pLimit(opts.concurrency);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: opts.trajectories }, (_, t) => limit(() => trajectory(t, true))));
  const totalS = (performance.now() - t0) / 1000;
  const ms = lat.map((l) => l.ms);
  return {
    name,
    trajectories: opts.trajectories,
    calls: lat.length,
    callsPerSec: lat.length / totalS,
    p50Ms: quantile(ms, 0.5),
    p95Ms: quantile(ms, 0.95),
    lightP50Ms: quantile(
      lat.filter((l) => LIGHT_SNIPPETS.includes(l.snippet)).map((l) => l.ms),
      0.5,
    ),
    warmP50Ms: quantile(
      lat.filter((l) => l.index > 0).map((l) => l.ms),
      0.5,
    ),
    openCloseMs: openClose.length ? quantile(openClose, 0.5) : 0,
    wrong: lat.filter((l) => l.r.status !== (l.snippet === 'raises' ? 'error' : 'ok')).length,
    resets: lat.filter((l) => l.r.sessionReset === true).length,
  };
}

/** Prints the rows and the two goals of issue 20 against `baseline` (the seed's fresh process per call). */
export function printSessionRows(rows: readonly SessionBenchRow[], baseline: string, sessionRow: string): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const base = rows.find((r) => r.name === baseline);
  console.log(
    [
      pad('trajectories of 4 calls', 28),
      pad('calls/s', 9),
      pad('×thr', 7),
      pad('p50 ms', 8),
      pad('p95 ms', 8),
      pad('light p50', 10),
      pad('warm p50', 9),
      pad('open+close', 11),
      'wrong',
      'resets',
    ].join(' '),
  );
  for (const r of rows) {
    console.log(
      [
        pad(r.name, 28),
        pad(r.callsPerSec.toFixed(1), 9),
        pad(base ? (r.callsPerSec / base.callsPerSec).toFixed(1) : '-', 7),
        pad(r.p50Ms.toFixed(1), 8),
        pad(r.p95Ms.toFixed(1), 8),
        pad(r.lightP50Ms.toFixed(2), 10),
        pad(r.warmP50Ms.toFixed(2), 9),
        pad(r.openCloseMs.toFixed(1), 11),
        pad(String(r.wrong), 5),
        String(r.resets),
      ].join(' '),
    );
  }
  const s = rows.find((r) => r.name === sessionRow);
  if (base && s) {
    const ratio = s.callsPerSec / base.callsPerSec;
    console.log('\ntargets (issue 20, session mode):');
    console.log(`  throughput session / seed = ${ratio.toFixed(1)}× (target ≥ 10×: ${ratio >= 10 ? 'met' : 'NOT met'})`);
    console.log(`  per-call p50 of light snippets = ${s.lightP50Ms.toFixed(2)} ms (target ≤ 5 ms: ${s.lightP50Ms <= 5 ? 'met' : 'NOT met'})`);
  }
}
