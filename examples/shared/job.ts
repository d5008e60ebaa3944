/** Small pieces of the end-to-end jobs (`main.ts` of retool, search-agent, sql-agent): timing, run folder, checkpoint check, deltas. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalResult } from 'agentrl';

/** Returns `elapsed()`: whole seconds since this call, as `'12s'`. */
export function stopwatch(): () => string {
  const t0 = performance.now();
  return () => `${((performance.now() - t0) / 1000).toFixed(0)}s`;
}

/** A fresh run folder under `runs`, named by the current time (`2026-12-02T03-04-05-678Z`). */
export function newRunDir(runs: string): string {
  return join(runs, new Date().toISOString().replace(/[:.]/g, '-'));
}

/** Exits with code 1 and says how to regenerate it when `checkpoint` holds no saved state. */
export function requireCheckpoint(checkpoint: string, npmScript: string): void {
  if (!existsSync(join(checkpoint, 'config.json'))) {
    console.error(`missing SFT checkpoint at ${checkpoint}; regenerate it with: npm run ${npmScript}`);
    process.exit(1);
  }
}

/**
 * `Average@N +1.6 pts, valid tool-call rate -3.1 pts`: the change of the two headline rates from `before` to `after`,
 * in percentage points.
 */
export function headlineDelta(before: EvalResult, after: EvalResult, n: number): string {
  const d = (k: string) => ((after.metrics[k] ?? 0) - (before.metrics[k] ?? 0)) * 100;
  const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  return `Average@${n} ${sign(d('eval/average_at_n'))} pts, valid tool-call rate ${sign(d('eval/valid_tool_call_rate'))} pts`;
}
