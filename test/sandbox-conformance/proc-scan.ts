import { readdirSync, readFileSync } from 'node:fs';

/** Pids of live (non-zombie) processes on this machine whose argv contains `marker`. Linux only. */
export function processesWithMarker(marker: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
      if (cmd.includes(marker)) out.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Polls `cond` every 50 ms until it holds or `ms` pass; returns the last value. */
export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
